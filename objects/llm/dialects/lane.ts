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
import { body, type HotEvent, type HotShape, headEnd, stringEnd } from './fast-path.ts'

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
  // For a fixed frame: the rest of one event after its first head part (sticky: it matches exactly at `lastIndex`).
  #event: RegExp | undefined = undefined
  // For a frame that varies: the rest of a run of whole events after the first one's first head
  // part (sticky), and the rest of one event with the next one's first head part, its string captured (global).
  #events: RegExp | undefined = undefined
  #strings: RegExp | undefined = undefined
  // Where `#eachEvent` or `#allEvents` stopped: the index after the last event it read.
  #end = 0
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
   * string holds a `\u` escape, that one event `read` alone). An event's string may hold only the
   * escapes `unescape` accepts other than `\u`, so each escape lies whole inside its event's
   * string, and the joined strings unescape at once to the pieces' readings joined.
   */
  run(text: string, at: number): LaneEvent | undefined {
    const frame = this.#remember()
    if (!frame) return undefined
    const raw = this.#events === undefined ? this.#eachEvent(text, at) : this.#allEvents(text, at, this.#events)
    const end = this.#end
    if (end === at) return this.read(text, at)
    return { text: raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw, index: frame.index, id: frame.id, end }
  }

  /**
   * `run` for a fixed frame (no varying integer, no tail pattern): each event's long literal start
   * checked by a slice comparison (memcmp), the rest by one sticky regex that allocates nothing
   * (the string and the tail), each string cut out by its known end. Faster than either alone.
   */
  #eachEvent(text: string, at: number): string {
    const event = this.#event!
    const first = this.#first
    const last = this.#last.length
    let raw = ''
    let end = at
    for (let start = at + first.length; text.slice(end, start) === first; start = end + first.length) {
      event.lastIndex = start
      if (!event.test(text)) break
      end = event.lastIndex
      raw += text.slice(start, end - last)
    }
    this.#end = end
    return raw
  }

  /**
   * `run` for a frame with varying integers or tail (OpenAI Responses): checked by one sticky regex
   * over the whole run of events, then their strings cut out by one global replace that keeps each
   * event's string and drops the rest. Per-event slices, integer skips and string scans in
   * JavaScript cost more here than the two native passes (measured in workerd).
   */
  #allEvents(text: string, at: number, events: RegExp): string {
    this.#end = at
    const start = at + this.#first.length
    if (text.slice(at, start) !== this.#first) return ''
    events.lastIndex = start
    if (!events.test(text)) return ''
    this.#end = events.lastIndex
    const strings = this.#strings!
    strings.lastIndex = 0
    // Matched event by event from the run's start: each match is one event's rest, its string captured.
    return text.slice(start, this.#end).replace(strings, '$1')
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
      const { rest, tails } = afterFirst(frame.head, frame.tail, this.shape.tail)
      const first = literal(this.#first)
      const fixed = frame.head.length === 1 && this.shape.tail === undefined
      this.#event = fixed ? new RegExp(`${PLAIN_BODY}${tails}`, 'y') : undefined
      this.#events = fixed ? undefined : new RegExp(`${rest}${PLAIN_BODY}(?:${tails}${first}${rest}${PLAIN_BODY})*${tails}`, 'y')
      this.#strings = fixed ? undefined : new RegExp(`${rest}(${PLAIN_BODY})${tails}(?:${first})?`, 'g')
    }
    return frame
  }
}

// A JSON string body whose every escape is one `unescape` reads, other than `\u`.
const PLAIN_BODY = String.raw`(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt])*`

/**
 * Regex sources for one whole event of a frame after its first head part: `rest`, each later head
 * part after a non-negative integer; then (after the string) `tails`, the remembered tail or what
 * the shape's own `tail` accepts, and the LF that ends the data line and the blank line after it.
 */
function afterFirst(head: string[], tail: string, shapeTail: RegExp | undefined): { rest: string; tails: string } {
  let rest = ''
  for (let part = 1; part < head.length; part++) rest += `(?:0|[1-9][0-9]*)${literal(head[part]!)}`
  // The shape's tail pattern is anchored (^…$); here it sits inside.
  const tails = shapeTail ? `${literal(tail)}|${shapeTail.source.slice(1, -1)}` : literal(tail)
  return { rest, tails: `(?:${tails})\n\n` }
}

/** Regex source matching `text` literally. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}
