/**
 * The hot-path shortcut, measured in bench/workers/llm-sse.bench.ts: a stream is
 * mostly a few event shapes (text and tool-argument deltas), and `JSON.parse` of
 * each whole envelope costs three times the SSE parsing around it. A `HotShape`
 * is one compiled pattern that accepts only that exact shape, written as valid
 * compact JSON, and captures what the dialect needs from it; for anything else
 * `hotRead` returns `undefined` and the dialect parses the event in full. Its
 * answer is by construction the one `JSON.parse` would give
 * (test/llm/fast-path.test.ts checks that by mutation).
 *
 * Consecutive deltas of one stream usually differ only in their string (the
 * same id, model and index around it). A shape made with `{ frame: true }`
 * remembers the text around its last match; an event that is that same frame
 * around a valid JSON string body is read with a few slice comparisons and one
 * pass over the string, with no regex. Any other event takes the regex, so the
 * answer is the same: the frame matched the shape, and any valid string body in
 * its place matches it too. Two relaxations keep that true for streams whose
 * frame changes on every event (OpenAI Responses): `vary` names members the
 * shape matches as any flat member (never a key the dialect reads) whose
 * non-negative integer may differ (a `sequence_number`), and `tail` is the
 * shape's own pattern for what follows the string (an `obfuscation` that
 * changes on every event), tried when the text after the string is not the
 * remembered one.
 */

// Flat members: keys no dialect reads here (JSON.parse lets a repeated key win, so
// a repeat must not slip through), each with a string without escapes, a number or
// a literal. Flat members keep the key that follows them at the top level.
const READ_KEYS = ['type', 'usage', 'error', 'choices', 'delta', 'index']
const VALUE = String.raw`(?:"[^"\\\u0000-\u001f]*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`

/** Regex source: any flat members, each with its trailing comma, none named like a read key or `alsoRead`. */
export function members(...alsoRead: string[]): string {
  const excluded = [...READ_KEYS, ...alsoRead].join('|')
  return String.raw`(?:"(?!(?:${excluded})")[^"\\\u0000-\u001f]*":${VALUE},)*`
}
/** Regex source: any flat members that are not read keys. */
export const MEMBERS = members()
/** Regex source: a JSON string, captured as `text` (escapes are checked by JSON.parse). */
export const STRING = String.raw`"(?<text>(?:[^"\\\u0000-\u001f]|\\.)*)"`
/** Regex source: a non-negative JSON integer, captured as `index`. */
export const INDEX = String.raw`(?<index>0|[1-9]\d*)`
/** Regex source: a JSON string without escapes, captured as `id`. */
export const ID = String.raw`"(?<id>[^"\\\u0000-\u001f]*)"`

/** A compiled hot event shape. */
export interface HotShape {
  readonly pattern: RegExp
  /** Capture group numbers of `text`, `index` and `id` (0 when the shape has none). */
  readonly groups: { text: number; index: number; id: number }
  /** Members whose integer value may change from frame to frame (frame shapes only). */
  readonly vary: readonly string[]
  /** The whole text after the string, from its closing quote, as the shape accepts it (frame shapes only). */
  readonly tail: RegExp | undefined
  /**
   * The last match's frame (frame shapes only): the text before the string, cut around each varying
   * integer (`head[0]`, an integer, `head[1]`, …), and the text after it, with what it captured.
   */
  frame: { head: string[]; tail: string; index: number; id: string } | null | undefined
}

/** What a hot event carries: its decoded string, and its index or id when the shape captures them. */
export interface HotEvent {
  text: string
  index: number
  id: string
}

/**
 * A shape from a regex source matching the whole event data.
 *
 * @example
 * const OUTPUT_TEXT_DELTA = hotShape(String.raw`\{"type":"response\.output_text\.delta",${MEMBERS}"delta":${STRING}\}`)
 */
export function hotShape(
  source: string,
  options: {
    /** Remember the last match's frame (see above). */
    frame?: boolean
    /** Flat members whose non-negative integer may differ between frames, e.g. `['sequence_number']`. */
    vary?: string[]
    /** Regex source of what follows the string, from its closing quote to the end, when it may change. */
    tail?: string
  } = {},
): HotShape {
  // Named groups are twice as slow to match as numbered ones: name them here, number them in the pattern.
  const names = [...source.matchAll(/\(\?<(text|index|id)>/g)].map((m) => m[1])
  if (!names.includes('text')) throw new Error('a hot shape captures one STRING')
  const group = (name: string) => names.indexOf(name) + 1
  // Match indices (`d`) cost a little on every match: only frame shapes, which need them, ask.
  const pattern = new RegExp(`^${source.replace(/\(\?<(?:text|index|id)>/g, '(')}$`, options.frame ? 'd' : '')
  return {
    pattern,
    groups: { text: group('text'), index: group('index'), id: group('id') },
    vary: options.vary ?? [],
    tail: options.tail === undefined ? undefined : new RegExp(`^${options.tail}$`),
    frame: options.frame ? null : undefined,
  }
}

/**
 * The event read through the shape's remembered frame, or `undefined` when the event is not that
 * frame around a valid string (then `hotRead` decides). Cheap enough to try before another shape.
 *
 * @example
 * hotFrame(data, TOOL_DELTA) ?? hotRead(data, CONTENT_DELTA) // the usual case of a tool stream first
 */
export function hotFrame(data: string, shape: HotShape): HotEvent | undefined {
  const frame = shape.frame
  if (!frame) return undefined
  const from = headEnd(data, 0, frame.head[0]!, frame.head)
  if (from === -1) return undefined
  const end = stringEnd(data, from)
  if (end === -1) return undefined
  if (end !== data.length - frame.tail.length || data.slice(end) !== frame.tail) {
    if (!shape.tail?.test(data.slice(end))) return undefined
  }
  const text = body(data, from, end)
  return text === undefined ? undefined : { text, index: frame.index, id: frame.id }
}

/**
 * Where the frame's string body starts when `text` holds, from `at`, `first` then each later head
 * part after an integer (the varying members); -1 otherwise. Shared with lane.ts.
 *
 * @example
 * headEnd('{"seq":12,"d":"x"}', 0, '{"seq":', ['{"seq":', ',"d":"']) // 15
 */
export function headEnd(text: string, at: number, first: string, head: string[]): number {
  // Slices compared with === run at memcmp speed; startsWith compares character by character.
  let to = at + first.length
  if (text.slice(at, to) !== first) return -1
  for (let part = 1; part < head.length; part++) {
    to = integerEnd(text, to)
    const piece = head[part]!
    if (to === -1 || text.slice(to, to + piece.length) !== piece) return -1
    to += piece.length
  }
  return to
}

/**
 * The JSON string body between `from` and its closing quote at `end`, unescaped; `undefined` for
 * a bad escape. Shared with lane.ts.
 *
 * @example
 * body('"a\\"b"', 1, 5) // 'a"b'
 */
export function body(text: string, from: number, end: number): string | undefined {
  const raw = text.slice(from, end)
  return raw.includes('\\') ? unescape(raw) : raw
}

/**
 * @example
 * hotRead('{"type":"response.output_text.delta","delta":"Hi"}', OUTPUT_TEXT_DELTA)?.text // 'Hi'
 */
export function hotRead(data: string, shape: HotShape): HotEvent | undefined {
  const framed = hotFrame(data, shape)
  if (framed) return framed
  const match = shape.pattern.exec(data)
  if (!match) return undefined
  const { groups } = shape
  const raw = match[groups.text] ?? ''
  const text = raw.includes('\\') ? unescape(raw) : raw
  if (text === undefined) return undefined
  const event = { text, index: groups.index ? Number(match[groups.index]) : -1, id: groups.id ? (match[groups.id] ?? '') : '' }
  const at = match.indices?.[groups.text]
  if (shape.frame !== undefined && at) shape.frame = { head: cutAtIntegers(data.slice(0, at[0]), shape.vary), tail: data.slice(at[1]), index: event.index, id: event.id }
  return event
}

/** `head` cut around the integer value of each `vary` member it holds, in order of position. */
function cutAtIntegers(head: string, vary: readonly string[]): string[] {
  const holes: [number, number][] = []
  for (const key of vary) {
    // A key follows `{` or `,`; a flat member's string cannot hold a `"`, so this is the member itself.
    for (const opener of ['{', ',']) {
      const at = head.indexOf(`${opener}"${key}":`)
      if (at === -1) continue
      const from = at + key.length + 4
      const to = integerEnd(head, from)
      if (to !== -1) holes.push([from, to])
    }
  }
  holes.sort((a, b) => a[0] - b[0])
  const parts: string[] = []
  let from = 0
  for (const [start, end] of holes) {
    parts.push(head.slice(from, start))
    from = end
  }
  parts.push(head.slice(from))
  return parts
}

/**
 * The end of the JSON non-negative integer (`0` or `[1-9][0-9]*`) at `from`; -1 when there is none.
 *
 * @example
 * integerEnd('"n":42,', 4) // 6
 */
export function integerEnd(data: string, from: number): number {
  const first = data.charCodeAt(from)
  if (first === 0x30) return from + 1
  if (!(first >= 0x31 && first <= 0x39)) return -1
  let at = from + 1
  for (let c = data.charCodeAt(at); c >= 0x30 && c <= 0x39; c = data.charCodeAt(++at));
  return at
}

/**
 * Where the JSON string whose body starts at `from` ends (the index of its closing quote), or -1
 * when a raw control character or a cut escape comes first. Escapes are skipped, not checked:
 * `unescape` checks them.
 *
 * @example
 * stringEnd('"a\\"b"}', 1) // 5
 */
export function stringEnd(data: string, from: number): number {
  const length = data.length
  for (let at = from; at < length; at++) {
    const c = data.charCodeAt(at)
    if (c === 0x22) return at
    if (c < 0x20) return -1
    // An escape's second character is checked by `unescape`; a raw control one (a line end) never belongs.
    if (c === 0x5c && (++at >= length || data.charCodeAt(at) < 0x20)) return -1
  }
  return -1
}

/**
 * A JSON string body with its escapes resolved, or `undefined` for an invalid
 * escape. Twice as fast as `JSON.parse` on the short, escape-dense argument
 * deltas of tool calls (JSON inside JSON).
 */
function unescape(raw: string): string | undefined {
  let out = ''
  let from = 0
  for (let at = raw.indexOf('\\'); at !== -1; at = raw.indexOf('\\', from)) {
    out += raw.slice(from, at)
    from = at + 2
    switch (raw.charCodeAt(at + 1)) {
      case 0x22: out += '"'; break
      case 0x5c: out += '\\'; break
      case 0x2f: out += '/'; break
      case 0x62: out += '\b'; break
      case 0x66: out += '\f'; break
      case 0x6e: out += '\n'; break
      case 0x72: out += '\r'; break
      case 0x74: out += '\t'; break
      case 0x75: {
        const hex = raw.slice(from, from + 4)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined
        out += String.fromCharCode(Number.parseInt(hex, 16))
        from += 4
        break
      }
      default:
        return undefined
    }
  }
  return out + raw.slice(from)
}
