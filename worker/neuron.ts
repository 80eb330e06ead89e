/**
 * Neuron as a package (`import { createNeuron } from 'neuron'`): one composition function that
 * builds the edge app and the Durable Object classes a deployment exports from its own Worker
 * entry. Neuron's own worker/index.ts is its simplest caller. The gate's stages and the routes are
 * composed here, in one visible place. A request to /v1 passes, in this order:
 *
 *   audit → challenge → authenticate → meter → [the deployment's stages] → [spawn] → [route: validate → authorize → handler]
 *
 * - audit wraps everything, so refusals are logged too
 * - challenge adds `WWW-Authenticate` to every 401, naming the protected-resource metadata
 * - authenticate is the only place a credential is checked (worker/gate/authenticate.ts)
 * - meter counts the request against its principal after the response is decided
 * - a deployment's own stages run next, in the order given: the principal is known, nothing routed yet
 * - spawn refuses agents' credentials on the routes that create sessions or orchestrations
 * - validate: each route parses its input with the zod schemas its declaration
 *   names (worker/route.ts), the ones the OpenAPI document is generated from
 * - authorize runs where each resource's policy lives: the SessionObject for a
 *   session (objects/access/authorize.ts), the principal's own namespace for a ledger
 *
 * Adding a stage of Neuron's own is one `app.use` line below.
 *
 * A deployment's tools, catalog rows and agent profiles are checked once, here (objects/extend/extensions.ts), and
 * reach the objects through subclasses that close over them: workerd constructs the classes the
 * entry exports, and a class's static value is the same for every request and every object.
 */
import { Hono, type MiddlewareHandler } from 'hono'
import { AppBackendObject } from '../objects/apps/backend-object.ts'
import { OutboundGate } from '../objects/apps/outbound-gate.ts'
import { AppShelfObject } from '../objects/apps/shelf-object.ts'
import { ConfigObject } from '../objects/config/config-object.ts'
import { DirectoryObject } from '../objects/directory/directory-object.ts'
import { composeExtensions, type Extensions, type ExtensionsInput, NO_EXTENSIONS } from '../objects/extend/extensions.ts'
import { GraphObject } from '../objects/graph/graph-object.ts'
import { LedgerObject } from '../objects/ledger-object/ledger-object.ts'
import { MeterObject } from '../objects/meter/meter-object.ts'
import { OrchestrationObject } from '../objects/orchestration/orchestration-object.ts'
import { SessionObject } from '../objects/session/wiring/session-object.ts'
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
import { agents } from './routes/agents.ts'
import { config } from './routes/config.ts'
import { auth } from './routes/auth.ts'
import { dev } from './routes/dev.ts'
import { graph, memory } from './routes/graph.ts'
import { health } from './routes/health.ts'
import { ledgers } from './routes/ledgers.ts'
import { mcp } from './routes/mcp.ts'
import { modules } from './routes/modules.ts'
import { oauth } from './routes/oauth.ts'
import { me } from './routes/me.ts'
import { orchestrations } from './routes/orchestrations.ts'
import { protectedResource } from './routes/protected-resource.ts'
import { schedules } from './routes/schedules.ts'
import { hooks, sessionHooks } from './routes/hooks.ts'
import { sessions } from './routes/sessions.ts'
import { orchestrationWorkspace, workspace } from './routes/workspace.ts'

/** What a deployment adds: its tools by name, catalog rows, agent profiles, and gate stages. */
export interface NeuronOptions extends ExtensionsInput {
  /** Hono middleware run on every /v1 request after authentication and metering, in this order. */
  stages?: MiddlewareHandler<AppEnv>[]
}

/** The composed deployment: the app (its `fetch` is the Worker's), and every class the entry must export. */
export interface Neuron {
  app: Hono<AppEnv>
  fetch: Hono<AppEnv>['fetch']
  /** The checked tools and rows the objects use. */
  extensions: Extensions
  SessionObject: typeof SessionObject
  OrchestrationObject: typeof OrchestrationObject
  LedgerObject: typeof LedgerObject
  MeterObject: typeof MeterObject
  DirectoryObject: typeof DirectoryObject
  ConfigObject: typeof ConfigObject
  GraphObject: typeof GraphObject
  AppShelfObject: typeof AppShelfObject
  AppBackendObject: typeof AppBackendObject
  OutboundGate: typeof OutboundGate
}

/**
 * Composes Neuron with a deployment's own tools, catalog rows, agent profiles and stages. Throws a
 * `NeuronError` (`TOOL_NAME_TAKEN`, `TOOL_NAME_INVALID`, `TOOL_INVALID`, `PROVIDER_TAKEN`,
 * `AGENT_NAME_INVALID`, `AGENT_INVALID`, `AGENTS_TOO_MANY`) when they do not fit.
 *
 * @example
 * const neuron = createNeuron({ tools: { weather } })
 * export const { SessionObject, OrchestrationObject, LedgerObject, MeterObject, DirectoryObject,
 *   ConfigObject, GraphObject, AppShelfObject, AppBackendObject, OutboundGate } = neuron
 * export default { fetch: neuron.fetch }
 */
export function createNeuron(options: NeuronOptions = {}): Neuron {
  const extensions = composeExtensions(options)
  const app = new Hono<AppEnv>()
  // The deployment's profiles are read at the edge too (creating a session of one, listing them).
  app.use('*', async (c, next) => {
    c.set('extensions', extensions)
    await next()
  })
  app.route('/health', health)
  // Installed apps' frontend files for the shell's frames: a path capability, no bearer token.
  app.route('/app-frames', appFrames)
  // Where OAuth clients learn which authorization server issues Neuron's tokens (RFC 9728).
  app.route('/.well-known/oauth-protected-resource', protectedResource)

  app.use('/v1/*', audit())
  app.use('/v1/*', challenge())
  app.use('/v1/*', authenticate({ open: OPEN_ROUTES }))
  app.use('/v1/*', meter())
  for (const stage of options.stages ?? []) app.use('/v1/*', stage)
  // The deployment's own tools, for the routes that keep a principal's upload off their names.
  app.use('/v1/*', async (c, next) => {
    c.set('extensions', extensions)
    await next()
  })
  app.on('POST', ['/v1/sessions', '/v1/orchestrations'], refuseAgents())

  app.route('/v1', docs)
  app.route('/v1/dev', dev)
  app.route('/v1/auth', auth)
  app.route('/v1/ledgers', ledgers)
  app.route('/v1/sessions', sessions)
  app.route('/v1/sessions', workspace)
  app.route('/v1/sessions', schedules)
  app.route('/v1/sessions', sessionHooks)
  app.route('/v1/hooks', hooks)
  app.route('/v1/graph', graph)
  app.route('/v1/memory', memory)
  app.route('/v1/orchestrations', orchestrations)
  app.route('/v1/orchestrations', orchestrationWorkspace)
  app.route('/v1/me', me)
  app.route('/v1/config', config)
  app.route('/v1/agents', agents)
  app.route('/v1/mcp', mcp)
  app.route('/v1/oauth', oauth)
  app.route('/v1/apps', apps)
  app.route('/v1/modules', modules)
  app.notFound((c) => c.json({ error: { code: 'NOT_FOUND', message: `no route for ${c.req.method} ${c.req.path}` } }, 404))
  app.onError(onError)

  const extended = extensions !== NO_EXTENSIONS
  return {
    app,
    fetch: app.fetch,
    extensions,
    // Neuron's own worker adds nothing and exports the classes themselves.
    SessionObject: extended ? class extends SessionObject { static override readonly extensions = extensions } : SessionObject,
    OrchestrationObject: extended ? class extends OrchestrationObject { static override readonly extensions = extensions } : OrchestrationObject,
    LedgerObject,
    MeterObject,
    DirectoryObject,
    ConfigObject,
    GraphObject,
    AppShelfObject,
    AppBackendObject,
    OutboundGate,
  }
}
