/**
 * Helpers for the provider tests: recorded streams as bytes, and a dialect run
 * over any split of them without the network.
 */
import { SseParser, type SseEvent } from '../../objects/llm/sse.ts'
import type { Dialect, LlmEvent } from '../../objects/llm/types.ts'

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

/**
 * Everything a dialect makes of `chunks`: the SSE events it read, its
 * normalized events, and the error that ended them, if any.
 */
export function runDialect(dialect: Dialect, chunks: Uint8Array[]): { wire: SseEvent[]; events: LlmEvent[]; error: unknown } {
  const sse = new SseParser()
  const parser = dialect.parser()
  const wire: SseEvent[] = []
  const events: LlmEvent[] = []
  let read = 0
  try {
    for (const chunk of chunks) {
      sse.push(chunk, wire)
      for (; read < wire.length; read++) parser.push(wire[read]!, events)
    }
    sse.end(wire)
    for (; read < wire.length; read++) parser.push(wire[read]!, events)
    parser.end(events)
    return { wire, events, error: undefined }
  } catch (error) {
    return { wire, events, error }
  }
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
