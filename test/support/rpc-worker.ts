/**
 * A test worker (`wrangler dev test/support/rpc-worker.ts` only, wrangler.toml's bindings; never
 * deployed): the real worker and objects, plus one route production does not have,
 * `POST /__rpc/{BINDING}/{name}/{method}` with a JSON array of arguments, which calls that
 * method of that object over RPC the way the worker does (`settled`) and answers its result, or
 * its failure by the worker's one rule. It reaches the RPC methods no public route can make
 * refuse (a directory shard's page, a meter's usage entry). `POST /__rpc/marker/{text}` throws
 * an error the worker does not catch, so workerd logs it as "Uncaught" like any other: a test
 * waits for that line to know the log before it has been relayed.
 */
import * as real from '../../worker/index.ts'
import { failureResponse } from '../../objects/core/failure.ts'
import { settled } from '../../objects/core/rpc.ts'

export { AppBackendObject, AppShelfObject, ConfigObject, DirectoryObject, GraphObject, LedgerObject, MeterObject, OrchestrationObject, OutboundGate, SessionObject } from '../../worker/index.ts'

const BINDINGS = new Set(['SESSIONS', 'LEDGER', 'GRAPHS', 'CONFIGS', 'APP_SHELVES', 'APP_BACKENDS', 'ORCHESTRATIONS', 'DIRECTORY', 'METERS'])

export default {
  async fetch(request: Request, env: Record<string, unknown>, ctx: ExecutionContext): Promise<Response> {
    const marker = /^\/__rpc\/marker\/([A-Za-z0-9-]+)$/.exec(new URL(request.url).pathname)
    if (marker) throw new Error(`rpc-marker ${marker[1]}`)
    const match = /^\/__rpc\/([A-Z_]+)\/([^/]+)\/([A-Za-z]+)$/.exec(new URL(request.url).pathname)
    if (!match) return real.default.fetch(request, env as never, ctx)
    const [, binding, name, method] = match as unknown as [string, string, string, string]
    if (!BINDINGS.has(binding) || request.method !== 'POST') return new Response('not found', { status: 404 })
    try {
      const args = (await request.json()) as unknown[]
      const stub = settled((env[binding] as DurableObjectNamespace).getByName(decodeURIComponent(name))) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>
      return Response.json({ result: (await stub[method]!(...args)) ?? null })
    } catch (thrown) {
      return failureResponse(thrown, `rpc-worker ${binding}.${method}`)
    }
  },
}
