/**
 * The fast lane of a dialect (`DialectParser.whole`): a hot shape's remembered frame (see
 * fast-path.ts) read as a whole SSE event straight off the decoded stream, with no line split, no
 * `SseEvent` and no data string in between. The text it accepts is `event: NAME` (no such line
 * for the default name `message`), `data: ` and the frame around a valid JSON string, and the
 * blank line, each ended by LF. The SSE parser would read exactly that as one event whose data
 * `hotFrame` reads, so the lane gives the same answer; other line ends, extra fields or a changed
 * frame make it decline, and the SSE parser reads the event instead.
 *
 * `run` reads as many such events in a row as the text holds and joins their strings: a tool
 * call's arguments arrive as dozens of these per network chunk, and one event for them all saves
 * an object, a fragment and an unescape pass per delta (measured in bench/workers/llm-sse.bench.ts).
 */
import type { SseEvent } from '../sse.ts'
import type { LlmEvent } from '../types.ts'
import { body, type HotEvent, type HotShape, headEnd, integerEnd, stringEnd } from './fast-path.ts'

/** What a lane read: `hotFrame`'s answer for the event's data (strings joined for a run), and the index after the last blank line. */
export interface LaneEvent extends HotEvent {
  end: number
}

/** How a dialect takes a hot event read through `shape`: false when it leaves the event to its full path. */
export type TakeHot = (shape: HotShape, hot: HotEvent, out: LlmEvent[]) => boolean

/**
 * A dialect parser's fast lane: `push` hands each event it read through a hot shape's frame to
 * `hot`, which remembers the shape and SSE event name; `whole` (the parser's
 * `DialectParser.whole`) then reads the next events of that shape whole, runs of the `joined` shape
 * (tool arguments) as one.
 *
 * @example
 * const lanes = new Lanes(JSON_DELTA, (shape, hot, out) => (out.push(…), true))
 * lanes.hot(event, JSON_DELTA, hotFrame(event.data, JSON_DELTA)!, out) // in push
 * lanes.whole(text, at, out) // in whole: the index after what it read, or -1
 */
export class Lanes {
  readonly #joined: HotShape
  readonly #take: TakeHot
  #lane: Lane | undefined = undefined

  constructor(joined: HotShape, take: TakeHot) {
    this.#joined = joined
    this.#take = take
  }

  /** `push` read `event` through `shape`'s frame: the dialect takes it, and the lane follows that shape. */
  hot(event: SseEvent, shape: HotShape, hot: HotEvent, out: LlmEvent[]): boolean {
    if (!this.#take(shape, hot, out)) return false
    if (this.#lane?.shape !== shape || this.#lane.name !== event.event) this.#lane = new Lane(shape, event.event)
    return true
  }

  /** The index after the event(s) the lane read at `at` and the dialect took, or -1. */
  whole(text: string, at: number, out: LlmEvent[]): number {
    const lane = this.#lane
    if (!lane) return -1
    const hot = lane.shape === this.#joined ? lane.run(text, at) : lane.read(text, at)
    return hot && this.#take(lane.shape, hot, out) ? hot.end : -1
  }
}

/**
 * @example
 * const lane = new Lane(JSON_DELTA, 'content_block_delta') // after hotRead(data, JSON_DELTA) read one
 * lane.read('event: content_block_delta\ndata: {…"partial_json":"x"}}\n\n', 0) // { text: 'x', …, end: 71 }
 */
export class Lane {
  readonly shape: HotShape
  /** The SSE event name the lane reads (`message` when the stream names none). */
  readonly name: string
  readonly #lead: string
  #frame: HotShape['frame'] = undefined
  #first = ''
  #last = ''
  // One whole event of the frame, for `run` (sticky: it matches exactly at `lastIndex`).
  #event: RegExp | undefined = undefined
  // The string of the event `#span` read last, from its first character to its closing quote.
  #from = 0
  #to = 0

  constructor(shape: HotShape, name: string) {
    this.shape = shape
    this.name = name
    this.#lead = name === 'message' ? 'data: ' : `event: ${name}\ndata: `
  }

  /** The one event at `at` of `text`, or `undefined` when it is not the frame's exactly. */
  read(text: string, at: number): LaneEvent | undefined {
    const end = this.#span(text, at)
    if (end === -1) return undefined
    const decoded = body(text, this.#from, this.#to)
    const frame = this.#frame!
    return decoded === undefined ? undefined : { text: decoded, index: frame.index, id: frame.id, end }
  }

  /**
   * Every event of the frame in a row from `at`, their strings joined (or, when the first one's
   * string holds a `\u` escape, that one event `read` alone). Each event's long literal start is
   * checked by a slice comparison (memcmp), the rest by one sticky regex that allocates nothing:
   * later head parts, a string of only the escapes `unescape` accepts other than `\u` (so each
   * escape lies whole inside its event's string, and the joined strings unescape at once to the
   * pieces' readings joined), the tail and the blank line.
   */
  run(text: string, at: number): LaneEvent | undefined {
    const frame = this.#remember()
    if (!frame) return undefined
    const { head } = frame
    const event = this.#event!
    const exactTail = this.shape.tail === undefined
    let raw = ''
    let end = at
    const first = this.#first
    // The long literal start by slice (memcmp), the rest by the regex: faster than either alone.
    for (let start = at + first.length; text.slice(end, start) === first; start = end + first.length) {
      event.lastIndex = start
      if (!event.test(text)) break
      const next = event.lastIndex
      let from = start
      for (let part = 1; part < head.length; part++) from = integerEnd(text, from) + head[part]!.length
      raw += text.slice(from, exactTail ? next - this.#last.length : stringEnd(text, from))
      end = next
    }
    if (end === at) return this.read(text, at)
    return { text: raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw, index: frame.index, id: frame.id, end }
  }

  /** The index after the frame's event at `at` (its string is then `#from`..`#to`), or -1. */
  #span(text: string, at: number): number {
    const frame = this.#remember()
    if (!frame) return -1
    const from = headEnd(text, at, this.#first, frame.head)
    if (from === -1) return -1
    const end = stringEnd(text, from)
    if (end === -1) return -1
    let after = end + this.#last.length
    if (text.slice(end, after) !== this.#last) {
      // The data line ends at the first LF (or CR) after the string; then the blank line.
      const lf = text.indexOf('\n', end)
      if (lf === -1 || text.charCodeAt(lf + 1) !== 0x0a) return -1
      const tail = text.slice(end, lf)
      if (tail.includes('\r') || !this.shape.tail?.test(tail)) return -1
      after = lf + 2
    }
    this.#from = from
    this.#to = end
    return after
  }

  /** The shape's frame now, with what the lane derives from it brought up to date. */
  #remember(): NonNullable<HotShape['frame']> | undefined {
    const frame = this.shape.frame
    if (!frame) return undefined
    if (frame !== this.#frame) {
      this.#frame = frame
      this.#first = this.#lead + frame.head[0]
      this.#last = `${frame.tail}\n\n`
      this.#event = afterFirst(frame.head, frame.tail, this.shape.tail)
    }
    return frame
  }
}

// A JSON string body whose every escape is one `unescape` reads, other than `\u`.
const PLAIN_BODY = String.raw`(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt])*`

/**
 * A sticky regex for the rest of one whole event of a frame after its first head part: each later
 * head part after a non-negative integer, a `PLAIN_BODY` string, the remembered tail or what the
 * shape's own `tail` accepts, and the LF that ends the data line and the blank line after it.
 */
function afterFirst(head: string[], tail: string, shapeTail: RegExp | undefined): RegExp {
  let source = ''
  for (let part = 1; part < head.length; part++) source += `(?:0|[1-9][0-9]*)${literal(head[part]!)}`
  // The shape's tail pattern is anchored (^…$); here it sits inside.
  const tails = shapeTail ? `${literal(tail)}|${shapeTail.source.slice(1, -1)}` : literal(tail)
  return new RegExp(`${source}${PLAIN_BODY}(?:${tails})\n\n`, 'y')
}

/** Regex source matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}
