/**
 * The large vendor streams the parser benchmarks read: a recorded stream's head
 * events, its delta events repeated to ~8 MB, and its tail events (one valid
 * stream), cut into 16 KiB chunks like network reads. Shared by the workerd
 * benchmark (against the line-split limit) and the node one (against the
 * official SDKs' parsers), so both read the same bytes.
 */
import { createCatalog, type Provider } from '../../objects/llm/catalog.ts'
import { CATALOG_SNAPSHOT } from '../../objects/llm/catalog-snapshot.ts'
import { anthropic } from '../../objects/llm/dialects/anthropic.ts'
import { openai } from '../../objects/llm/dialects/openai.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { type SseEvent, SseParser } from '../../objects/llm/sse.ts'
import { streamModel } from '../../objects/llm/stream.ts'
import { WireReader } from '../../objects/llm/wire-reader.ts'
import type { Dialect, LlmEvent } from '../../objects/llm/types.ts'
import anthropicText from '../../test/fixtures/llm/anthropic/text.sse?raw'
import anthropicTools from '../../test/fixtures/llm/anthropic/tools-parallel.sse?raw'
import compatText from '../../test/fixtures/llm/openai-compatible/text.sse?raw'
import compatTools from '../../test/fixtures/llm/openai-compatible/tools-parallel.sse?raw'
import openaiText from '../../test/fixtures/llm/openai/text.sse?raw'
import openaiTools from '../../test/fixtures/llm/openai/tools-parallel.sse?raw'

export const TARGET_BYTES = 8 * 1024 * 1024
export const CHUNK = 16 * 1024

/** Head events, the delta events repeated to ~TARGET_BYTES, tail events: one valid stream. */
export function large(recording: string, isDelta: (event: string) => boolean): Uint8Array {
  const events = recording.split(/(?<=\n\n)/)
  const first = events.findIndex(isDelta)
  const last = events.findLastIndex(isDelta)
  const body = events.slice(first, last + 1).join('')
  const head = events.slice(0, first).join('')
  const tail = events.slice(last + 1).join('')
  return new TextEncoder().encode(head + body.repeat(Math.ceil(TARGET_BYTES / body.length)) + tail)
}

/** The bytes in network-sized reads. */
export function chunks(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += CHUNK) out.push(bytes.subarray(at, at + CHUNK))
  return out
}

/** `kind` is the dialect's endpoint kind (`Dialect.kind`), which `viaStreamModel` takes. */
export type StreamCase = { name: string; kind: 'anthropic/messages' | 'openai/responses' | 'openai/completions'; bytes: Uint8Array }

/**
 * Text streams repeat the text deltas; tool streams repeat the argument deltas of one call, as a
 * long tool input (a file write, say) streams.
 *
 * @example
 * for (const { name, kind, bytes } of streamCases()) console.log(name, kind, bytes.length)
 */
export function streamCases(): StreamCase[] {
  return [
    { name: 'anthropic text', kind: 'anthropic/messages', bytes: large(anthropicText, (e) => e.includes('"text_delta"')) },
    { name: 'anthropic tool input', kind: 'anthropic/messages', bytes: large(anthropicTools, (e) => e.includes('"index":1,"delta":{"type":"input_json_delta"')) },
    { name: 'openai text', kind: 'openai/responses', bytes: large(openaiText, (e) => e.includes('response.output_text.delta')) },
    { name: 'openai tool input', kind: 'openai/responses', bytes: large(openaiTools, (e) => e.includes('arguments.delta') && e.includes('"output_index":0')) },
    { name: 'openai-compatible text', kind: 'openai/completions', bytes: large(compatText, (e) => e.includes('"content":"')) },
    { name: 'openai-compatible tool input', kind: 'openai/completions', bytes: large(compatTools, (e) => e.includes('{"tool_calls":[{"index":0,"function"')) },
  ]
}

/** The whole of `streamModel` over an in-memory streaming body (async iteration included). */
export async function viaStreamModel(endpoint: string, parts: Uint8Array[]): Promise<number> {
  const row = CATALOG_SNAPSHOT.find((p) => p.endpoint === endpoint)!
  const provider: Provider = { ...row, enabled: true, apiKey: 'k', headers: {}, fetch: undefined }
  const catalog = createCatalog([provider], { provider: row.id, model: row.models[0]!.id })
  let count = 0
  const request = { provider: row.id, model: row.models[0]!.id, messages: [] }
  for await (const _ of streamModel(request, { catalog, fetch: async () => new Response(streamingBody(parts)) })) count++
  return count
}

/** A response body that hands out `parts` one per read, as a network would. */
export function streamingBody(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++]
      if (part) controller.enqueue(part)
      else controller.close()
    },
  })
}

/** Each case's dialect, by endpoint kind. */
export const DIALECTS: Record<StreamCase['kind'], Dialect> = { 'anthropic/messages': anthropic, 'openai/responses': openai, 'openai/completions': openaiCompatible }

/** The physical limit: decode and cut into lines, nothing else. */
export function decodeAndSplit(parts: Uint8Array[]): number {
  const decoder = new TextDecoder()
  let carry = ''
  let lines = 0
  for (const part of parts) {
    const text = carry + decoder.decode(part, { stream: true })
    const split = text.split('\n')
    carry = split.pop() ?? ''
    lines += split.length
  }
  return lines + (carry + decoder.decode()).split('\n').length
}

/** The shared SSE parser alone: the floor under every dialect. */
export function sseOnly(parts: Uint8Array[]): number {
  const sse = new SseParser()
  const wire: SseEvent[] = []
  let count = 0
  for (const part of parts) {
    sse.push(part, wire)
    count += wire.length
    wire.length = 0
  }
  sse.end(wire)
  return count + wire.length
}

/** The dialect path of `streamModel`, minus the network: SSE parser + dialect parser, as `WireReader` joins them. */
export function parse(dialect: Dialect, parts: Uint8Array[]): number {
  const reader = new WireReader(dialect.parser())
  let count = 0
  for (const part of parts) {
    const out: LlmEvent[] = []
    reader.push(part, out)
    count += out.length
  }
  const out: LlmEvent[] = []
  reader.end(out)
  return count + out.length
}
