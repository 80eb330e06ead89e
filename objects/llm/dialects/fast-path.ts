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
 * around a valid JSON string body is read with two prefix/suffix comparisons
 * and one pass over the string, with no regex. Any other event takes the regex,
 * so the answer is the same: the frame matched the shape, and any valid string
 * body in its place matches it too.
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
  /** The text before and after the string of the last match, with what it captured (frame shapes only). */
  frame: { head: string; tail: string; index: number; id: string } | null | undefined
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
export function hotShape(source: string, options: { /** Remember the last match's frame (see above). */ frame?: boolean } = {}): HotShape {
  // Named groups are twice as slow to match as numbered ones: name them here, number them in the pattern.
  const names = [...source.matchAll(/\(\?<(text|index|id)>/g)].map((m) => m[1])
  if (!names.includes('text')) throw new Error('a hot shape captures one STRING')
  const group = (name: string) => names.indexOf(name) + 1
  // Match indices (`d`) cost a little on every match: only frame shapes, which need them, ask.
  const pattern = new RegExp(`^${source.replace(/\(\?<(?:text|index|id)>/g, '(')}$`, options.frame ? 'd' : '')
  return { pattern, groups: { text: group('text'), index: group('index'), id: group('id') }, frame: options.frame ? null : undefined }
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
  const { head, tail } = frame
  const end = data.length - tail.length
  // Slices compared with === run at memcmp speed; startsWith compares character by character.
  if (end < head.length || data.slice(end) !== tail || data.slice(0, head.length) !== head) return undefined
  const text = stringBody(data, head.length, end)
  return text === undefined ? undefined : { text, index: frame.index, id: frame.id }
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
  if (shape.frame !== undefined && at) shape.frame = { head: data.slice(0, at[0]), tail: data.slice(at[1]), index: event.index, id: event.id }
  return event
}

/**
 * `data[from, to)` read as the body of a JSON string: escapes resolved; `undefined` when it is not
 * one (a bare `"`, a raw control character, a bad or cut escape).
 */
function stringBody(data: string, from: number, to: number): string | undefined {
  let out = ''
  let run = from
  for (let at = from; at < to; at++) {
    const c = data.charCodeAt(at)
    if (c === 0x22 || c < 0x20) return undefined
    if (c !== 0x5c) continue
    if (at + 1 >= to) return undefined
    let decoded: string
    switch (data.charCodeAt(at + 1)) {
      case 0x22: decoded = '"'; break
      case 0x5c: decoded = '\\'; break
      case 0x2f: decoded = '/'; break
      case 0x62: decoded = '\b'; break
      case 0x66: decoded = '\f'; break
      case 0x6e: decoded = '\n'; break
      case 0x72: decoded = '\r'; break
      case 0x74: decoded = '\t'; break
      case 0x75: {
        if (at + 6 > to) return undefined
        const hex = data.slice(at + 2, at + 6)
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined
        decoded = String.fromCharCode(Number.parseInt(hex, 16))
        out += data.slice(run, at) + decoded
        at += 5
        run = at + 1
        continue
      }
      default:
        return undefined
    }
    out += data.slice(run, at) + decoded
    at += 1
    run = at + 1
  }
  return run === from ? data.slice(from, to) : out + data.slice(run, to)
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
