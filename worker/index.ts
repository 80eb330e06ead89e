/**
 * The edge entry: the gate's stages and the routes, composed here in one
 * visible place. A request to /v1 passes, in this order:
 *
 *   audit → challenge → authenticate → meter → [spawn] → [route: validate → authorize → handler]
 *
 * - audit wraps everything, so refusals are logged too
 * - challenge adds `WWW-Authenticate` to every 401, naming the protected-resource metadata
 * - authenticate is the only place a credential is checked (worker/gate/authenticate.ts)
 * - meter counts the request against its principal after the response is decided
 * - spawn refuses agents' credentials on the routes that create sessions or orchestrations
 * - validate: each route parses its input with the zod schemas its declaration
 *   names (worker/route.ts), the ones the OpenAPI document is generated from
 * - authorize runs where each resource's policy lives: the SessionObject for a
 *   session (objects/access/authorize.ts), the principal's own namespace for a ledger
 *
 * Adding a stage is one `app.use` line below.
 */
import { Hono } from 'hono'
import type { AppEnv } from './env.ts'
import { audit } from './gate/audit.ts'
import { authenticate } from './gate/authenticate.ts'
import { challenge } from './gate/challenge.ts'
import { meter } from './gate/meter.ts'
import { refuseAgents } from './gate/spawn.ts'
import { onError } from './on-error.ts'
import { docs, OPEN_ROUTES } from './openapi/routes.ts'
import { appFrames } from './routes/app-frames.ts'
import { apps } from './routes/apps.ts'
import { config } from './routes/config.ts'
import { dev } from './routes/dev.ts'
import { graph, memory } from './routes/graph.ts'
import { health } from './routes/health.ts'
import { ledgers } from './routes/ledgers.ts'
import { mcp } from './routes/mcp.ts'
import { oauth } from './routes/oauth.ts'
import { me } from './routes/me.ts'
import { orchestrations } from './routes/orchestrations.ts'
import { protectedResource } from './routes/protected-resource.ts'
import { sessions } from './routes/sessions.ts'

export { AppBackendObject } from '../objects/apps/backend-object.ts'
export { OutboundGate } from '../objects/apps/outbound-gate.ts'
export { AppShelfObject } from '../objects/apps/shelf-object.ts'
export { DirectoryObject } from '../objects/directory/directory-object.ts'
export { ConfigObject } from '../objects/config/config-object.ts'
export { GraphObject } from '../objects/graph/graph-object.ts'
export { LedgerObject } from '../objects/ledger-object/ledger-object.ts'
export { MeterObject } from '../objects/meter/meter-object.ts'
export { OrchestrationObject } from '../objects/orchestration/orchestration-object.ts'
export { SessionObject } from '../objects/session/wiring/session-object.ts'

export const app = new Hono<AppEnv>()
app.route('/health', health)
// Installed apps' frontend files for the shell's frames: a path capability, no bearer token.
app.route('/app-frames', appFrames)
// Where OAuth clients learn which authorization server issues Neuron's tokens (RFC 9728).
app.route('/.well-known/oauth-protected-resource', protectedResource)

app.use('/v1/*', audit())
app.use('/v1/*', challenge())
app.use('/v1/*', authenticate({ open: OPEN_ROUTES }))
app.use('/v1/*', meter())
app.on('POST', ['/v1/sessions', '/v1/orchestrations'], refuseAgents())

app.route('/v1', docs)
app.route('/v1/dev', dev)
app.route('/v1/ledgers', ledgers)
app.route('/v1/sessions', sessions)
app.route('/v1/graph', graph)
app.route('/v1/memory', memory)
app.route('/v1/orchestrations', orchestrations)
app.route('/v1/me', me)
app.route('/v1/config', config)
app.route('/v1/mcp', mcp)
app.route('/v1/oauth', oauth)
app.route('/v1/apps', apps)
app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `no route for ${c.req.method} ${c.req.path}` } }, 404))
app.onError(onError)

export default app
