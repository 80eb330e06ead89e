/**
 * The runner bench's wire: the local model's answer to `/tokens 10000` as chat-completions SSE
 * bytes in 16 KiB chunks, the same parsed once up front (one batch per chunk), and a vendor that
 * replays the bytes over an in-process fetch. Shared by the bench (bench/workers/runner.bench.ts)
 * and the profile worker (bench/profile/runner-worker.ts), so what is profiled is what is measured.
 */
import { composeCatalog } from '../../objects/llm/compose.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { localFetch } from '../../objects/llm/local/fetch.ts'
import { streamModelBatches } from '../../objects/llm/stream.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { WireReader } from '../../objects/llm/wire-reader.ts'

export const TOKENS = 10_000
export const PROMPT = `/tokens ${TOKENS}`

export interface RunnerWire {
  bytes: Uint8Array
  chunks: Uint8Array[]
  /** The same events parsed once, one batch per chunk: the runner's input without the transport and the parse. */
  batches: LlmEvent[][]
  /** A vendor replaying these exact bytes (chunked as the local model sends them), as `fetch`. */
  replay: () => Promise<Response>
  /** One provider turn through `streamModelBatches` over `replay`, as a runner host's `stream`. */
  stream: (request: LlmRequest, signal?: AbortSignal) => AsyncIterable<LlmEvent[]>
  /** The same batches as a stream with nothing under it. */
  preparsed: () => AsyncIterable<LlmEvent[]>
}

/**
 * @example
 * const wire = await runnerWire()
 * const session = scriptedSession(new Ledger(storage), 'session.s1', wire.stream, { prompt: PROMPT })
 */
export async function runnerWire(): Promise<RunnerWire> {
  const body = JSON.stringify({ model: 'echo-1', stream: true, messages: [{ role: 'user', content: PROMPT }] })
  const response = await localFetch('http://local.neuron/v1/chat/completions', { method: 'POST', body })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const chunks: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += 16 * 1024) chunks.push(bytes.subarray(at, at + 16 * 1024))
  const batches: LlmEvent[][] = []
  const reader = new WireReader(openaiCompatible.parser())
  for (const chunk of chunks) reader.push(chunk, (batches[batches.length] = []))
  reader.end((batches[batches.length] = []))
  const replay = async () =>
    new Response(
      new ReadableStream({
        start(c) {
          for (const chunk of chunks) c.enqueue(chunk)
          c.close()
        },
      }),
    )
  const vendor = composeCatalog({ DEEPSEEK_API_KEY: 'replay' })
  return {
    bytes,
    chunks,
    batches,
    replay,
    stream: (request, signal) =>
      streamModelBatches({ ...request, provider: 'deepseek', model: 'deepseek-chat' }, { catalog: vendor, fetch: replay, ...(signal ? { signal } : {}) }),
    // A plain loop: `yield*` over an array awaits each element once more.
    preparsed: async function* () {
      for (const batch of batches) yield batch
    },
  }
}

/**
 * The limit: SSE + dialect over the chunks in memory, through `WireReader` as `streamModel` reads
 * them, the events joined in one array. Returns how many events it read.
 *
 * @example
 * const began = performance.now(); parseWire(wire.chunks); const ms = performance.now() - began
 */
export function parseWire(chunks: Uint8Array[]): number {
  const reader = new WireReader(openaiCompatible.parser())
  const out: LlmEvent[] = []
  for (const chunk of chunks) reader.push(chunk, out)
  reader.end(out)
  return out.length
}
