/**
 * `GET /v1/oauth/mcp/callback`: where an MCP server's authorization server
 * sends the principal's browser back with `code` and `state`. A redirect
 * cannot carry the principal's bearer token, so this route is open and the
 * state is the only credential: it is opened here (a forged or expired one is
 * refused before any object is addressed), and the principal's config object
 * it names consumes it once and exchanges the code for tokens. Nothing this
 * route answers holds a token.
 */
import { z } from 'zod'
import { NeuronError } from '../../objects/core/errors.ts'
import { settled } from '../../objects/core/rpc.ts'
import { openState } from '../../objects/tools/mcp/oauth/state.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import * as R from '../openapi/responses.ts'
import { mount, route } from '../route.ts'

/** The callback's path: the redirect URI registered with authorization servers is this, on the request's origin. */
export const CALLBACK_PATH = '/v1/oauth/mcp/callback'

/** What the authorization server sends back (RFC 6749 §4.1.2): `code` and `state`, or `error` and `state`. */
export const McpOAuthCallbackQuery = z.object({
  state: z.string().max(1024).optional(),
  code: z.string().max(4096).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(1024).optional(),
})

/**
 * The `/v1/oauth` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * OAUTH_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const OAUTH_ROUTES = [
  route({
    method: 'get',
    path: CALLBACK_PATH,
    operationId: 'mcpOAuthCallback',
    summary: 'Where the authorization server sends the browser back: the sealed, single-use state names the principal and server; the code is exchanged for tokens, which are stored sealed and never answered',
    auth: 'none',
    query: McpOAuthCallbackQuery,
    ok: { 200: '{ server, authorized: true }' },
    response: R.McpOAuthCompleted,
    errors: ['INVALID_REQUEST', 'MCP_OAUTH_STATE_INVALID', 'MCP_OAUTH_STATE_EXPIRED', 'MCP_OAUTH_DENIED', 'MCP_OAUTH_EXCHANGE_FAILED', 'MCP_URL_REFUSED', 'CREDENTIALS_NOT_CONFIGURED'],
    handler: async (c) => {
      const query = parseOrThrow(McpOAuthCallbackQuery, c.req.query(), 'INVALID_REQUEST')
      const state = await openState(c.env.CREDENTIALS_SECRET, query.state)
      const { code, error } = query
      if (!code && !error) throw new NeuronError('INVALID_REQUEST', 'the callback needs code (or error) and state', { status: 400 })
      const result = code ? { code } : { error: `${error}${query.error_description ? `: ${query.error_description}` : ''}` }
      return c.json(await settled(c.env.CONFIGS.getByName(state.principal)).completeMcpOAuth(state.principal, state.server, state.nonce, result))
    },
  }),
]

/** The `/v1/oauth` router, mounted by worker/neuron.ts: `app.route('/v1/oauth', oauth)`. */
export const oauth = mount('/v1/oauth', OAUTH_ROUTES)
