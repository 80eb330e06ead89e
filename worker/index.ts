/**
 * The edge entry. Routes are mounted here, in one visible place, and the one
 * error handler turns typed errors into JSON.
 */
import { Hono } from 'hono'
import type { AppEnv } from './env.ts'
import { onError } from './on-error.ts'
import { health } from './routes/health.ts'
import { ledgers } from './routes/ledgers.ts'

export { LedgerObject } from '../objects/ledger-object/ledger-object.ts'

const app = new Hono<AppEnv>()
app.route('/health', health)
app.route('/v1/ledgers', ledgers)
app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `no route for ${c.req.method} ${c.req.path}` } }, 404))
app.onError(onError)

export default app
