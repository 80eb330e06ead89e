/**
 * Which regular expressions a registered schema may use. JavaScript's regex
 * engine backtracks: a pattern such as `^(a+)+$` takes time exponential in the
 * input, and one validation would stall the isolate (and every other request it
 * serves). Rather than bound the input (exponential shapes stall on 30
 * characters), the registry refuses the shapes that backtrack exponentially:
 *
 * - a repeated group that itself repeats or alternates: `(a+)+`, `(a*)*`,
 *   `(a|aa)+`, `(\w+\s?)*`, `(?:x{2,})+`
 * - backreferences (`\1`, `\k<name>`), whose matching is not regular
 *
 * "Repeated" means `*`, `+`, `{n,}` or `{n,m}` with m > 1; `?` and `{0,1}` are not.
 * Patterns of star height one with at most polynomial backtracking (`a*a*$`)
 * remain allowed; their cost is bounded by the payload size limits.
 * Pure: no platform imports.
 */

/** Why a pattern is refused, or `null` when it is allowed. */
export function unsafePattern(pattern: string): string | null {
  // One frame per open group: whether it contains repetition or alternation.
  const stack: { repeats: boolean; alternates: boolean }[] = [{ repeats: false, alternates: false }]
  // What the next quantifier applies to: a group's frame, an atom, or nothing.
  let last: { repeats: boolean; alternates: boolean } | 'atom' | null = null
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!
    const top = stack[stack.length - 1]!
    if (ch === '\\') {
      const next = pattern[i + 1] ?? ''
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences are not allowed'
      i += next === 'u' || next === 'p' || next === 'P' || next === 'x' || next === 'c' ? skipEscapeBody(pattern, i + 1) : 1
      last = 'atom'
    } else if (ch === '[') {
      i = skipClass(pattern, i)
      last = 'atom'
    } else if (ch === '(') {
      stack.push({ repeats: false, alternates: false })
      if (pattern[i + 1] === '?') i += groupPrefixLength(pattern, i + 1)
      last = null
    } else if (ch === ')') {
      const closed = stack.length > 1 ? stack.pop()! : top
      last = closed
    } else if (ch === '|') {
      top.alternates = true
      last = null
    } else if (ch === '*' || ch === '+' || ch === '?' || (ch === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)))) {
      const end = ch === '{' ? pattern.indexOf('}', i) : i
      const repeats = ch === '{' ? repeatsBraces(pattern.slice(i, end + 1)) : ch !== '?'
      if (repeats && last !== null && last !== 'atom' && (last.repeats || last.alternates)) {
        return `a repeated group that itself ${last.repeats ? 'repeats' : 'alternates'} (as in (a+)+ or (a|b)*) can backtrack exponentially`
      }
      const parent = stack[stack.length - 1]!
      if (repeats) parent.repeats = true
      if (last !== null && last !== 'atom') {
        parent.repeats ||= last.repeats
        parent.alternates ||= last.alternates
      }
      i = end
      if (pattern[i + 1] === '?') i++ // lazy
      last = null
    } else {
      if (last !== null && last !== 'atom') {
        top.repeats ||= last.repeats
        top.alternates ||= last.alternates
      }
      last = 'atom'
    }
  }
  return null
}

/** `{n}` and `{n,m}` with m ≤ 1 match a bounded, single occurrence; the rest repeat. */
function repeatsBraces(quantifier: string): boolean {
  const [, min, comma, max] = /^\{(\d+)(,)?(\d*)\}$/.exec(quantifier)!
  if (!comma) return Number(min) > 1
  return max === '' || Number(max) > 1
}

/** Characters after `\` to skip for `\u{…}`, `\uXXXX`, `\p{…}`, `\xHH`, `\cX`. */
function skipEscapeBody(pattern: string, at: number): number {
  if (pattern[at + 1] === '{') return pattern.indexOf('}', at) - at + 1
  if (pattern[at] === 'u') return 5
  if (pattern[at] === 'x') return 3
  return 2
}

/** The index of the `]` closing the class opened at `start`. */
function skipClass(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++
    else if (pattern[i] === ']') return i
  }
  return pattern.length
}

/** Length of `?:`, `?=`, `?!`, `?<=`, `?<!` or `?<name>` after `(`. */
function groupPrefixLength(pattern: string, at: number): number {
  const rest = pattern.slice(at)
  const named = /^\?<[A-Za-z_$][\w$]*>/.exec(rest)
  if (named) return named[0].length
  return rest.startsWith('?<=') || rest.startsWith('?<!') ? 3 : 2
}
