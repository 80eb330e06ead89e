/**
 * Helpers for the provider tests: recorded streams as bytes, and a dialect run
 * over any split of them without the network.
 */
import { SseParser, type SseEvent } from '../../objects/llm/sse.ts'
import type { Dialect, LlmEvent } from '../../objects/llm/types.ts'
import { WireReader } from '../../objects/llm/wire-reader.ts'

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

/**
 * Everything a dialect makes of `chunks` through `WireReader`, as `streamModel` reads a body: the
 * SSE events of the whole stream (the SSE parser alone), the normalized events, and the error that
 * ended them, if any.
 */
export function runDialect(dialect: Dialect, chunks: Uint8Array[]): { wire: SseEvent[]; events: LlmEvent[]; error: unknown } {
  const wire = sseEvents(chunks).events
  const reader = new WireReader(dialect.parser())
  const events: LlmEvent[] = []
  try {
    for (const chunk of chunks) reader.push(chunk, events)
    reader.end(events)
    return { wire, events, error: undefined }
  } catch (error) {
    return { wire, events, error }
  }
}

/**
 * `events` with each run of adjacent `tool-input-delta` events of one call joined into one: a
 * tool call's argument deltas may arrive joined (one per run in a network chunk), so two readings
 * of a stream are the same when they are the same after this.
 *
 * @example
 * joinedDeltas([{ type: 'tool-input-delta', id: 'a', delta: '{' }, { type: 'tool-input-delta', id: 'a', delta: '}' }])
 * // [{ type: 'tool-input-delta', id: 'a', delta: '{}' }]
 */
export function joinedDeltas(events: LlmEvent[]): LlmEvent[] {
  const out: LlmEvent[] = []
  for (const event of events) {
    const last = out.at(-1)
    if (event.type === 'tool-input-delta' && last?.type === 'tool-input-delta' && last.id === event.id) {
      out[out.length - 1] = { ...last, delta: last.delta + event.delta }
    } else out.push(event)
  }
  return out
}

/** The events of a stream that must parse without error. */
export function parseOk(dialect: Dialect, text: string): LlmEvent[] {
  const { events, error } = runDialect(dialect, [utf8(text)])
  if (error) throw error
  return events
}

/** `bytes` cut in two at `at`. */
export function splitAt(bytes: Uint8Array, at: number): Uint8Array[] {
  return [bytes.subarray(0, at), bytes.subarray(at)]
}

/** Every SSE event of a whole text, for parser unit tests. */
export function sseEvents(chunks: Array<string | Uint8Array>): { events: SseEvent[]; parser: SseParser } {
  const parser = new SseParser()
  const events: SseEvent[] = []
  for (const chunk of chunks) parser.push(chunk, events)
  parser.end(events)
  return { events, parser }
}

/** The same event stream with every LF line end rewritten as CRLF or CR. */
export function withLineEnds(text: string, end: '\r\n' | '\r'): string {
  return text.replaceAll('\n', end)
}

/** Collects an async iterable, keeping what arrived before an error. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<{ events: T[]; error: unknown }> {
  const events: T[] = []
  try {
    for await (const event of iterable) events.push(event)
    return { events, error: undefined }
  } catch (error) {
    return { events, error }
  }
}
