/**
 * The load harness's worker (`wrangler dev bench/load/worker.ts` only, wrangler.toml's bindings; never deployed):
 * the real worker and objects, each object's storage writes counted, plus one
 * route production does not have, `GET /__bench/rows`, the rows written so far
 * (`?by=statement`: by object class and statement).
 */
import * as real from '../../worker/index.ts'
import { counted, rowsByStatement, rowsWritten } from './rows.ts'

export const SessionObject = counted(real.SessionObject, 'session')
export const LedgerObject = counted(real.LedgerObject, 'ledger')
export const MeterObject = counted(real.MeterObject, 'meter')
export const DirectoryObject = counted(real.DirectoryObject, 'directory')
export const ConfigObject = counted(real.ConfigObject, 'config')
export const GraphObject = counted(real.GraphObject, 'graph')
export const OrchestrationObject = counted(real.OrchestrationObject, 'orchestration')
export const AppShelfObject = counted(real.AppShelfObject, 'apps')
export const AppBackendObject = counted(real.AppBackendObject, 'apps')
export { OutboundGate } from '../../worker/index.ts'

export default {
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Response | Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname === '/__bench/rows') return Response.json(url.searchParams.get('by') === 'statement' ? rowsByStatement() : rowsWritten())
    return real.default.fetch(request, env as never, ctx)
  },
}
