/**
 * The runner profile's worker (`wrangler dev bench/profile/runner-worker.ts` only, wrangler.toml's
 * bindings; never deployed): the real worker and objects, plus one route production does not have,
 * `GET /__profile/runner?mode=…&n=…&object=…`, which runs the runner bench's turn `n` times inside
 * a session object's storage, so a CPU profile taken through the inspector sees exactly that work.
 *
 * Modes, as the runner bench's lines (bench/workers/runner.bench.ts): `parse` (the limit: WireReader
 * over the bytes in memory), `stream` (streamModelBatches over the replayed bytes), `turn` (the
 * runner over them, with a real ledger and history), `preparsed` (the runner over the same events
 * parsed up front).
 */
import * as real from '../../worker/index.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { localFetch } from '../../objects/llm/local/fetch.ts'
import { streamModelBatches } from '../../objects/llm/stream.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { WireReader } from '../../objects/llm/wire-reader.ts'
import { scriptedSession } from '../../test/support/runner-host.ts'

export { AppBackendObject, AppShelfObject, ConfigObject, DirectoryObject, GraphObject, LedgerObject, MeterObject, OrchestrationObject, OutboundGate } from '../../worker/index.ts'

/** The four kinds of work the profile can run; see the header. */
export const MODES = ['parse', 'stream', 'turn', 'preparsed'] as const
export type Mode = (typeof MODES)[number]

const PROMPT = '/tokens 10000'

/** The bench's bytes (the local model's 10,000-token answer, in 16 KiB chunks) and the same parsed once, one batch per chunk. */
interface Wire {
  chunks: Uint8Array[]
  batches: LlmEvent[][]
}

let wire: Promise<Wire> | null = null

async function load(): Promise<Wire> {
  const body = JSON.stringify({ model: 'echo-1', stream: true, messages: [{ role: 'user', content: PROMPT }] })
  const bytes = new Uint8Array(await (await localFetch('http://local.neuron/v1/chat/completions', { method: 'POST', body })).arrayBuffer())
  const chunks: Uint8Array[] = []
  for (let at = 0; at < bytes.length; at += 16 * 1024) chunks.push(bytes.subarray(at, at + 16 * 1024))
  const batches: LlmEvent[][] = []
  const reader = new WireReader(openaiCompatible.parser())
  for (const chunk of chunks) reader.push(chunk, (batches[batches.length] = []))
  reader.end((batches[batches.length] = []))
  return { chunks, batches }
}

/** The session object with the profile route in front of its own `fetch`. */
export class SessionObject extends real.SessionObject {
  private sessions = 0

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname !== '/__profile/runner') return super.fetch(request)
    const { chunks, batches } = await (wire ??= load())
    const mode = (url.searchParams.get('mode') ?? 'turn') as Mode
    const n = Number(url.searchParams.get('n') ?? 20)
    const replay = async () => new Response(new ReadableStream({ start: (c) => (chunks.forEach((chunk) => c.enqueue(chunk)), c.close()) }))
    const vendor = composeCatalog({ DEEPSEEK_API_KEY: 'replay' })
    const viaVendor = (req: LlmRequest, signal?: AbortSignal) =>
      streamModelBatches({ ...req, provider: 'deepseek', model: 'deepseek-chat' }, { catalog: vendor, fetch: replay, ...(signal ? { signal } : {}) })
    const began = performance.now()
    for (let r = 0; r < n; r++) {
      if (mode === 'parse') {
        const reader = new WireReader(openaiCompatible.parser())
        const out: LlmEvent[] = []
        for (const chunk of chunks) reader.push(chunk, out)
        reader.end(out)
      } else if (mode === 'stream') {
        for await (const batch of viaVendor({ provider: '', model: '', messages: [{ role: 'user', content: PROMPT }] })) void batch
      } else {
        // As the bench yields them: a plain loop (`yield*` over an array awaits each element once more).
        const preparsed = async function* () {
          for (const batch of batches) yield batch
        }
        const stream = mode === 'preparsed' ? preparsed : viaVendor
        await scriptedSession(new Ledger(this.ctx.storage), `session.profile-${this.sessions++}`, stream, { prompt: PROMPT }).runner.wake()
      }
    }
    return Response.json({ mode, n, msPerRun: (performance.now() - began) / n })
  }
}

export default {
  fetch(request: Request, env: { SESSIONS: DurableObjectNamespace<SessionObject> }, ctx: ExecutionContext): Response | Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname === '/__profile/runner') return env.SESSIONS.getByName(url.searchParams.get('object') ?? 'profile').fetch(request)
    return real.default.fetch(request, env as never, ctx)
  },
}
