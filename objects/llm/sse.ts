/**
 * The one server-sent-events parser every dialect reads through, following the
 * WHATWG "event stream interpretation" rules: LF, CR and CRLF line ends, `:`
 * comments, multi-line `data`, `event`, `id` (no NULL), `retry` (digits only),
 * one leading BOM ignored, and an unterminated last event discarded. Bytes may
 * be split anywhere, even inside a UTF-8 character: a streaming `TextDecoder`
 * holds partial characters and a string buffer holds partial lines.
 *
 * A reader may offer a fast lane (`SseSink.whole`): at each place where an event
 * starts with no field pending, it may take a whole event of a shape it already
 * knows straight off the decoded text, without the line-by-line walk and the
 * `SseEvent` in between (objects/llm/wire-reader.ts; measured in
 * bench/workers/llm-sse.bench.ts).
 */

/** One dispatched event. `event` defaults to `'message'`; `id` is the last event id seen so far. */
export interface SseEvent {
  event: string
  data: string
  id: string
}

/** Where `SseParser.read` sends what it reads. */
export interface SseSink {
  /** Each dispatched event, in order. */
  event(event: SseEvent): void
  /**
   * Optional fast lane, called where an event starts (a line start, no `data` or `event` pending):
   * take the whole event at `at` of `text`, through its blank line, as `event` would have had it,
   * and return the index after it; or return -1 and leave it to the parser. Only text that reads as
   * exactly one event may be taken: the parser does not see it.
   */
  whole?(text: string, at: number): number
}

/**
 * @example
 * const parser = new SseParser()
 * const events: SseEvent[] = []
 * parser.push(new TextEncoder().encode('event: ping\ndata: {}\n\n'), events)
 * parser.end(events) // events: [{ event: 'ping', data: '{}', id: '' }]
 */
export class SseParser {
  /** The reconnection time the stream last asked for with `retry:`, in ms. */
  retry: number | undefined = undefined
  /** The last event id buffer; survives across events as the spec says. */
  lastEventId = ''

  #decoder = new TextDecoder()
  #buffer = ''
  // A CR ended the previous chunk: an LF starting the next one belongs to it.
  #afterCR = false
  #data: string | undefined = undefined
  #event = ''

  /** Feeds bytes (or already decoded text) and appends every completed event to `out` (or hands it to the sink). */
  push(chunk: Uint8Array | string, out: SseEvent[] | SseSink): void {
    const sink = Array.isArray(out) ? collect(out) : out
    const text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true })
    // What the last chunk left unread (usually an event it cut, see `#feed`) mostly ends at the
    // first blank line here. Finishing it in a short string of its own leaves the rest, the bulk,
    // as the flat string the decoder made: `buffer + text` would be copied whole before it is read.
    const blank = this.#buffer === '' ? -1 : text.indexOf('\n\n')
    if (blank === -1) return this.#feed(text, sink)
    this.#feed(text.slice(0, blank + 2), sink)
    this.#feed(text.slice(blank + 2), sink)
  }

  /** The stream ended: flushes the decoder; a last line or event without its terminator is dropped. */
  end(out: SseEvent[] | SseSink): void {
    this.#feed(this.#decoder.decode(), Array.isArray(out) ? collect(out) : out)
    this.#buffer = ''
    this.#data = undefined
    this.#event = ''
  }

  #feed(text: string, out: SseSink): void {
    const buf = this.#buffer === '' ? text : this.#buffer + text
    const len = buf.length
    let start = 0
    if (this.#afterCR && len > 0) {
      if (buf.charCodeAt(0) === 10) start = 1
      this.#afterCR = false
    }
    // Where the event being read began, when known: a lane may take it whole from there.
    let eventStart = -1
    if (out.whole && this.#data === undefined && this.#event === '') eventStart = start = lane(buf, start, out)
    let lf = buf.indexOf('\n', start)
    let cr = buf.indexOf('\r', start)
    while (lf !== -1 || cr !== -1) {
      let end: number
      let next: number
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        end = lf
        next = lf + 1
        lf = buf.indexOf('\n', next)
      } else {
        end = cr
        next = cr + 1
        if (next === len) this.#afterCR = true
        else if (buf.charCodeAt(next) === 10) lf = buf.indexOf('\n', ++next)
        cr = buf.indexOf('\r', next)
      }
      if (start !== end) this.#line(buf, start, end)
      else {
        this.#dispatch(out)
        // An event just ended: the next may be one the sink reads whole.
        if (out.whole) {
          eventStart = next = lane(buf, next, out)
          if (lf !== -1 && lf < next) lf = buf.indexOf('\n', next)
          if (cr !== -1 && cr < next) cr = buf.indexOf('\r', next)
        }
      }
      start = next
    }
    if (eventStart !== -1 && eventStart < start && start - eventStart <= REREAD_LIMIT) {
      // The chunk ended inside an event: keep all of it, unread, so the next chunk's lane can take
      // it whole. Reading its lines again later sets the same fields (an id or retry the same value).
      this.#data = undefined
      this.#event = ''
      this.#afterCR = false
      start = eventStart
    }
    this.#buffer = start === 0 ? buf : buf.slice(start)
  }

  #line(buf: string, start: number, end: number): void {
    if (buf.startsWith('data:', start)) return this.#appendData(buf.slice(valueStart(buf, start + 5, end), end))
    // Vendors name nearly every event (Anthropic, OpenAI Responses): the second most common line.
    if (buf.startsWith('event:', start)) return void (this.#event = buf.slice(valueStart(buf, start + 6, end), end))
    const first = buf.charCodeAt(start)
    if (first === 58) return // ':' comment
    let colon = buf.indexOf(':', start)
    if (colon === -1 || colon > end) colon = end
    const field = buf.slice(start, colon)
    const value = colon === end ? '' : buf.slice(valueStart(buf, colon + 1, end), end)
    if (field === 'event') this.#event = value
    else if (field === 'data') this.#appendData(value)
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastEventId = value
    } else if (field === 'retry') {
      if (/^[0-9]+$/.test(value)) this.retry = Number(value)
    }
  }

  #appendData(value: string): void {
    this.#data = this.#data === undefined ? value : this.#data + '\n' + value
  }

  #dispatch(out: SseSink): void {
    const data = this.#data
    const event = this.#event
    this.#data = undefined
    this.#event = ''
    if (data !== undefined) out.event({ event: event === '' ? 'message' : event, data, id: this.lastEventId })
  }
}

/** The index after every whole event the sink took in a row from `at`. */
function lane(buf: string, at: number, sink: SseSink): number {
  for (let next = sink.whole!(buf, at); next !== -1; next = sink.whole!(buf, at)) at = next
  return at
}

/** A sink that appends to an array. */
function collect(out: SseEvent[]): SseSink {
  return { event: (event) => void out.push(event) }
}

// The most of a cut event that is kept to be read again (see `#feed`): an event of many lines
// spanning many chunks is read on as it comes, not again from its start on every chunk.
const REREAD_LIMIT = 16 * 1024

/** Skips the one optional space after the colon. */
function valueStart(buf: string, at: number, end: number): number {
  return at < end && buf.charCodeAt(at) === 32 ? at + 1 : at
}
