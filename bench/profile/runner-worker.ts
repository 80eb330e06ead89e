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
import { scriptedSession } from '../../test/support/runner-host.ts'
import { parseWire, PROMPT, type RunnerWire, runnerWire } from '../support/runner-wire.ts'

export { AppBackendObject, AppShelfObject, ConfigObject, DirectoryObject, GraphObject, LedgerObject, MeterObject, OrchestrationObject, OutboundGate } from '../../worker/index.ts'

/** The four kinds of work the profile can run; see the header. */
export type Mode = 'parse' | 'stream' | 'turn' | 'preparsed'

let wire: Promise<RunnerWire> | null = null

/** The session object with the profile route in front of its own `fetch`. */
export class SessionObject extends real.SessionObject {
  private sessions = 0

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname !== '/__profile/runner') return super.fetch(request)
    const { chunks, stream, preparsed } = await (wire ??= runnerWire())
    const mode = (url.searchParams.get('mode') ?? 'turn') as Mode
    const n = Number(url.searchParams.get('n') ?? 20)
    const began = performance.now()
    for (let r = 0; r < n; r++) {
      if (mode === 'parse') parseWire(chunks)
      else if (mode === 'stream') for await (const batch of stream({ provider: 'deepseek', model: 'deepseek-chat', messages: [{ role: 'user', content: PROMPT }] })) void batch
      else await scriptedSession(new Ledger(this.ctx.storage), `session.profile-${this.sessions++}`, mode === 'turn' ? stream : preparsed, { prompt: PROMPT }).runner.wake()
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
