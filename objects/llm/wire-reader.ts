/**
 * A response body's bytes to normalized events: the SSE parser and one dialect parser, joined so
 * the dialect's fast lane (`DialectParser.whole`) can take the bulk of a stream, its run of
 * same-shaped deltas, straight off the decoded text, and the SSE parser reads the rest line by
 * line. The one place that joins them: `streamModel`, the parser benchmarks and the dialect tests
 * all read through it, so what is measured and tested is what runs.
 */
import { SseParser, type SseEvent, type SseSink } from './sse.ts'
import type { DialectParser, LlmEvent } from './types.ts'

/**
 * @example
 * const reader = new WireReader(anthropic.parser())
 * const out: LlmEvent[] = []
 * for (const chunk of chunks) reader.push(chunk, out)
 * reader.end(out) // throws PROVIDER_STREAM_TRUNCATED when the stream stopped early
 */
export class WireReader implements SseSink {
  readonly #sse = new SseParser()
  readonly #parser: DialectParser
  #out: LlmEvent[] = []

  constructor(parser: DialectParser) {
    this.#parser = parser
    // No lane, no probe at each event start.
    if (!parser.whole) this.whole = undefined
  }

  /** Reads one network chunk, appending its events to `out`; throws what the dialect throws. */
  push(chunk: Uint8Array | string, out: LlmEvent[]): void {
    this.#out = out
    this.#sse.push(chunk, this)
  }

  /** The body ended: reads what the decoder held, then lets the dialect check the stream was complete. */
  end(out: LlmEvent[]): void {
    this.#out = out
    this.#sse.end(this)
    this.#parser.end(out)
  }

  /** @internal the SSE parser's sink */
  event(event: SseEvent): void {
    this.#parser.push(event, this.#out)
  }

  /** @internal the SSE parser's fast lane */
  whole?: (text: string, at: number) => number = (text, at) => this.#parser.whole!(text, at, this.#out)
}
