/**
 * The collector: every /v1 route, in the order the OpenAPI document and /v1/docs list them. Each
 * route is declared once beside its handler (worker/route.ts, worker/routes/*.ts); this file only
 * gathers the areas' declarations. Tests hold the collection to the routes Hono serves, the limits
 * they enforce, the codes they answer, and the limits docs/api.md states.
 */
import { AGENT_ROUTES } from '../routes/agents.ts'
import { APP_ROUTES } from '../routes/apps.ts'
import { CONFIG_ROUTES } from '../routes/config.ts'
import { AUTH_ROUTES } from '../routes/auth.ts'
import { DEV_ROUTES } from '../routes/dev.ts'
import { docsRoutes } from '../routes/docs.ts'
import { GRAPH_ROUTES, MEMORY_ROUTES } from '../routes/graph.ts'
import { LEDGER_ROUTES } from '../routes/ledgers.ts'
import { MCP_ROUTES } from '../routes/mcp.ts'
import { MODULE_ROUTES } from '../routes/modules.ts'
import { ME_ROUTES } from '../routes/me.ts'
import { OAUTH_ROUTES } from '../routes/oauth.ts'
import { ORCHESTRATION_ROUTES } from '../routes/orchestrations.ts'
import { SCHEDULE_ROUTES } from '../routes/schedules.ts'
import { HOOK_ROUTES } from '../routes/hooks.ts'
import { SESSION_ROUTES } from '../routes/sessions.ts'
import { ORCHESTRATION_WORKSPACE_ROUTES, WORKSPACE_ROUTES } from '../routes/workspace.ts'
import { mount, type Route } from '../route.ts'

export type { Auth, ResponseBody, RouteDoc } from '../route.ts'
export { AUTH_ERRORS, COMMON_ERRORS } from './document.ts'

/** `/v1/openapi.json` and `/v1/docs`, describing this whole collection. */
const DOCS_ROUTES = docsRoutes(() => ROUTES)

/**
 * Every declared /v1 route.
 *
 * @example
 * ROUTES.find((r) => r.operationId === 'createSession')?.maxBodyBytes
 */
export const ROUTES: readonly Route[] = [
  ...DOCS_ROUTES,
  ...DEV_ROUTES,
  ...AUTH_ROUTES,
  ...ME_ROUTES,
  ...CONFIG_ROUTES,
  ...AGENT_ROUTES,
  ...OAUTH_ROUTES,
  ...MCP_ROUTES,
  ...SESSION_ROUTES,
  ...WORKSPACE_ROUTES,
  ...SCHEDULE_ROUTES,
  ...HOOK_ROUTES,
  ...GRAPH_ROUTES,
  ...MEMORY_ROUTES,
  ...ORCHESTRATION_ROUTES,
  ...ORCHESTRATION_WORKSPACE_ROUTES,
  ...LEDGER_ROUTES,
  ...APP_ROUTES,
  ...MODULE_ROUTES,
]

/** The router of the two describing routes, mounted at `/v1`. */
export const docs = mount('/v1', DOCS_ROUTES)

/**
 * Routes the gate lets through without a credential, read from their declared `auth`: the
 * document, the dev sign-in (which checks its own conditions), the shell's refresh and sign-out
 * (whose cookie is their credential, checked by the refresh route), and the MCP OAuth callback,
 * whose sealed state is its credential.
 */
export const OPEN_ROUTES = ROUTES.filter((declared) => declared.auth === 'none').map((declared) => declared.path)
