/**
 * ECMA-262 pattern syntax (`u` mode) rewritten for RE2 with the same meaning, and its weight.
 * The input has already been parsed by V8, so it is well formed; what is left is where the two
 * dialects differ:
 *
 * - `.` and `\s`/`\S` mean more in ECMA-262 (`.` stops at `\r`, `\u2028`, `\u2029` too; `\s`
 *   includes `\v` and the Unicode spaces), so they become explicit classes
 * - `\uXXXX` (a surrogate pair of them is one code point in `u` mode), `\u{…}`, `\xHH`, `\cX`,
 *   `\0`, and `\b` in a class (backspace) become `\x{…}`
 * - `\p{General_Category=Lu}`, `\p{gc=Lu}`, `\p{Script=Greek}`, `\p{sc=Greek}` become `\p{Lu}`,
 *   `\p{Greek}`; long category names (`\p{Letter}`) become short ones
 * - `[^]` and `[]` (any character, none) become ranges; `[` inside a class is escaped
 * - lookaround, backreferences and inline modifiers are refused: RE2 has no linear-time meaning
 *   for the first two, and modifiers would change what the rewrites above mean
 *
 * The weight bounds RE2's program: each atom counts 1 (a Unicode property 64: its tables are
 * large), times the repetition counts around it (`{n,m}` m, `{n,}` n+1, `+` 2).
 * Pure: no platform imports.
 */

const LINE_TERMINATORS = '\\n\\r\\x{2028}\\x{2029}'
const SPACE = '\\t\\n\\x{B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}'
const NOT_SPACE = '\\x{0}-\\x{8}\\x{E}-\\x{1F}\\x{21}-\\x{9F}\\x{A1}-\\x{167F}\\x{1681}-\\x{1FFF}\\x{200B}-\\x{2027}\\x{202A}-\\x{202E}\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}\\x{3001}-\\x{FEFE}\\x{FF00}-\\x{10FFFF}'
const PROPERTY_WEIGHT = 64

/** General category long names (Unicode PropertyValueAliases), which RE2 knows only by their short names. */
const CATEGORIES: Record<string, string> = {
  Letter: 'L', Cased_Letter: 'LC', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt', Modifier_Letter: 'Lm', Other_Letter: 'Lo',
  Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn', Spacing_Mark: 'Mc', Enclosing_Mark: 'Me',
  Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd', Open_Punctuation: 'Ps', Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf', Other_Punctuation: 'Po',
  Symbol: 'S', Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk', Other_Symbol: 'So',
  Separator: 'Z', Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp',
  Other: 'C', Control: 'Cc', cntrl: 'Cc', Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co', Unassigned: 'Cn',
}

export type Translation = { ok: true; re2: string; weight: number } | { ok: false; reason: string }

/**
 * `source` (ECMA-262, `u` mode, already parsed by V8) as RE2 syntax, unless it is refused.
 *
 * @example
 * toRe2('^\\s.$', 4096) // { ok: true, re2: '^[\\t\\n…][^\\n\\r\\x{2028}\\x{2029}]$', weight: 4 }
 * toRe2('(a)\\1', 4096) // { ok: false, reason: 'backreferences are not supported …' }
 */
export function toRe2(source: string, maxWeight: number): Translation {
  // One frame per open group: its weight so far, and the weight of its last atom (what a quantifier repeats).
  const frames: { weight: number; last: number }[] = [{ weight: 0, last: 0 }]
  let out = ''
  let inClass = false
  let classWeight = 0
  const atom = (text: string, weight = 1): void => {
    out += text
    if (inClass) {
      classWeight += weight - 1
      return
    }
    const top = frames[frames.length - 1]!
    top.weight += weight
    top.last = weight
  }
  for (let i = 0; i < source.length; ) {
    const ch = source[i]!
    if (ch === '\\') {
      const escape = translateEscape(source, i, inClass)
      if ('reason' in escape) return { ok: false, reason: escape.reason }
      atom(escape.text, escape.weight)
      i = escape.end
      continue
    }
    if (inClass) {
      if (ch === ']') {
        inClass = false
        out += ']'
        atom('', 1 + classWeight)
      } else atom(ch === '[' ? '\\[' : ch)
      i++
      continue
    }
    if (ch === '[') {
      if (source.startsWith('[^]', i)) {
        atom('[\\x{0}-\\x{10FFFF}]')
        i += 3
      } else if (source.startsWith('[]', i)) {
        atom('[^\\x{0}-\\x{10FFFF}]')
        i += 2
      } else {
        const negated = source[i + 1] === '^'
        out += negated ? '[^' : '['
        inClass = true
        classWeight = 0
        i += negated ? 2 : 1
      }
      continue
    }
    if (ch === '(') {
      const group = groupOpening(source, i)
      if ('reason' in group) return { ok: false, reason: group.reason }
      out += group.text
      frames.push({ weight: 0, last: 0 })
      i = group.end
      continue
    }
    if (ch === ')') {
      const closed = frames.length > 1 ? frames.pop()! : frames[0]!
      out += ')'
      atom('', closed.weight)
      i++
      continue
    }
    if (ch === '|') {
      out += '|'
      frames[frames.length - 1]!.last = 0
      i++
      continue
    }
    const quantifier = /^(?:[*+?]|\{(\d+)(,(\d*))?\})\??/.exec(source.slice(i, i + 24))
    if (quantifier) {
      const top = frames[frames.length - 1]!
      top.weight += top.last * (repeats(quantifier) - 1)
      top.last = 0
      out += quantifier[0]
      i += quantifier[0].length
    } else if (ch === '.') {
      atom(`[^${LINE_TERMINATORS}]`)
      i++
    } else {
      const char = String.fromCodePoint(source.codePointAt(i)!)
      atom(char)
      i += char.length
    }
    if (frames[0]!.weight > maxWeight) return { ok: false, reason: `the pattern expands to more than ${maxWeight} states (bounded repetitions multiply)` }
  }
  const weight = frames.reduce((sum, frame) => sum + frame.weight, 0)
  if (weight > maxWeight) return { ok: false, reason: `the pattern expands to more than ${maxWeight} states (bounded repetitions multiply)` }
  return { ok: true, re2: out, weight }
}

/** How many copies of its atom a quantifier makes in RE2's program. */
function repeats(quantifier: RegExpExecArray): number {
  const [text, min, comma, max] = quantifier
  if (text.startsWith('+')) return 2
  if (min === undefined) return 1
  if (!comma) return Number(min)
  return max === '' ? Number(min) + 1 : Math.max(Number(max), 1)
}

type Piece = { text: string; weight: number; end: number } | { reason: string }

function translateEscape(source: string, at: number, inClass: boolean): Piece {
  const next = source[at + 1]!
  const end = at + 2
  switch (next) {
    case 's':
      return { text: inClass ? SPACE : `[${SPACE}]`, weight: 1, end }
    case 'S':
      return { text: inClass ? NOT_SPACE : `[${NOT_SPACE}]`, weight: 1, end }
    case 'b':
      return { text: inClass ? '\\x{8}' : '\\b', weight: 1, end }
    case '0':
      return { text: '\\x{0}', weight: 1, end }
    case 'c':
      return { text: codePoint(source.charCodeAt(at + 2) % 32), weight: 1, end: at + 3 }
    case 'x':
      return { text: `\\x{${source.slice(at + 2, at + 4)}}`, weight: 1, end: at + 4 }
    case 'u':
      return unicodeEscape(source, at)
    case 'p':
    case 'P':
      return property(source, at)
    case 'k':
      return { reason: 'backreferences are not supported (RE2 matches in linear time and has none)' }
    default:
      if (next >= '1' && next <= '9') return { reason: 'backreferences are not supported (RE2 matches in linear time and has none)' }
      // \d \D \w \W \B \t \n \v \f \r and escaped syntax characters mean the same in RE2.
      return { text: `\\${next}`, weight: 1, end }
  }
}

function unicodeEscape(source: string, at: number): Piece {
  if (source[at + 2] === '{') {
    const close = source.indexOf('}', at)
    return { text: codePoint(parseInt(source.slice(at + 3, close), 16)), weight: 1, end: close + 1 }
  }
  const unit = parseInt(source.slice(at + 2, at + 6), 16)
  const low = /^\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})/.exec(source.slice(at + 6, at + 12))
  if (unit >= 0xd800 && unit <= 0xdbff && low) {
    // In `u` mode an escaped surrogate pair is one code point.
    return { text: codePoint(0x10000 + ((unit - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00)), weight: 1, end: at + 12 }
  }
  return { text: codePoint(unit), weight: 1, end: at + 6 }
}

function property(source: string, at: number): Piece {
  const close = source.indexOf('}', at)
  const body = source.slice(at + 3, close)
  const [name, value] = body.includes('=') ? body.split('=') as [string, string] : [null, body]
  if (name === 'Script_Extensions' || name === 'scx') return { reason: `\\p{${body}} is not supported: RE2 has no Script_Extensions` }
  const short = name === 'General_Category' || name === 'gc' || name === null ? (CATEGORIES[value] ?? value) : value
  return { text: `\\${source[at + 1]}{${short}}`, weight: PROPERTY_WEIGHT, end: close + 1 }
}

function groupOpening(source: string, at: number): { text: string; end: number } | { reason: string } {
  if (source[at + 1] !== '?') return { text: '(', end: at + 1 }
  const rest = source.slice(at + 2, at + 4)
  if (rest.startsWith(':')) return { text: '(?:', end: at + 3 }
  if (rest.startsWith('=') || rest.startsWith('!')) return { reason: 'lookahead is not supported (RE2 matches in linear time and has none)' }
  if (rest === '<=' || rest === '<!') return { reason: 'lookbehind is not supported (RE2 matches in linear time and has none)' }
  if (rest.startsWith('<')) return { text: '(?P<', end: at + 3 }
  return { reason: 'inline modifiers such as (?i:…) are not supported' }
}

function codePoint(value: number): string {
  return `\\x{${value.toString(16).toUpperCase()}}`
}
