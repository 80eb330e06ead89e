/**
 * Every /v1 route, described once for the OpenAPI document and docs/api.md: its
 * auth, the zod schemas its handler validates with, its body limit, its success
 * bodies and the error codes it can answer. Tests check this table against the
 * routes Hono serves, the limits they enforce, the codes they answer, and the
 * limits docs/api.md states.
 */
import type { z } from 'zod'
import { ConfigSchema } from '../../objects/config/schema.ts'
import { CredentialBody } from '../../objects/config/credentials.ts'
import { McpHeadersBody, McpOAuthStartBody } from '../../objects/tools/mcp/servers.ts'
import { McpOAuthCallbackQuery } from '../routes/oauth.ts'
import { McpMessage } from '../mcp/message.ts'
import { EdgeBody, FoldQuery, ForgetBody, NeighbourQuery, NodeBody, PathQuery, PruneBody, RecallBody, RememberBody, ScopeQuery } from '../../objects/graph/inputs.ts'
import { EnvelopeDraftSchema } from '../../objects/ledger/envelope.ts'
import { InterruptSchema } from '../../objects/session/control.ts'
import { ForkSchema, TruncateSchema } from '../../objects/session/fork.ts'
import { PageQuery, StreamQuery } from '../../objects/delivery/queries.ts'
import { CreateSessionSchema, PromptSchema } from '../../objects/session/schemas.ts'
import { ListQuery, SchemaBody, WalkQuery } from '../routes/ledgers.ts'
import { CancelSchema, ClearanceSchema, CreateOrchestrationSchema } from '../../objects/orchestration/schemas.ts'
import { OrchestrationHistoryQuery } from '../routes/orchestrations.ts'
import { MAX_APPEND_BYTES, MAX_BODY_BYTES, MAX_CREDENTIAL_BYTES, MAX_GRAPH_BODY, MAX_MCP_HEADERS_BYTES, MAX_MCP_OAUTH_BYTES, MAX_SCHEMA_BYTES } from '../../objects/core/limits.ts'
import { APP_ROUTES } from './app-routes.ts'
import { BODY_ERRORS, REQUEST_ERRORS } from './body-errors.ts'
import * as R from './responses.ts'

export type Auth = 'none' | 'bearer' | 'bearer-or-ticket'

/** A success body: a JSON Schema, or a non-JSON media type with its schema. */
export type ResponseBody = Record<string, unknown> | { mediaType: string; schema: Record<string, unknown> }

export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete'
  path: string
  /** Unique, stable name of the operation (what generated clients call it). */
  operationId: string
  summary: string
  auth: Auth
  body?: z.ZodType
  /** The largest body the route reads; larger is 413 `PAYLOAD_TOO_LARGE` before it is read. */
  maxBodyBytes?: number
  query?: z.ZodType
  /** Success statuses and what they mean. */
  ok: Record<number, string>
  /** The body of every success status but 101. */
  response?: ResponseBody
  /** Error codes this route can answer, beyond the gate's 401s and `COMMON_ERRORS`. */
  errors: string[]
  /** Failure statuses whose body is not the `{ error: { code } }` shape (the MCP transport's JSON-RPC errors). */
  failures?: Record<number, { description: string; response: ResponseBody }>
}

const SESSION_ERRORS = ['SESSION_NOT_FOUND', 'INVALID_SESSION_ID']
const LEDGER_ERRORS = ['INVALID_NAME']
const ORCHESTRATION_ERRORS = ['ORCHESTRATION_NOT_FOUND', 'INVALID_ORCHESTRATION_ID']
/** Every graph route resolves `?scope=`: the caller's own graph, or a claim's it holds. */
const GRAPH_ERRORS = ['INVALID_QUERY', 'CLAIM_REQUIRED']

export const ROUTES: RouteDoc[] = [
  { method: 'get', path: '/v1/openapi.json', operationId: 'getOpenApi', summary: 'This OpenAPI 3.1 document', auth: 'none', ok: { 200: 'the document' }, response: R.OpenApi, errors: [] },
  { method: 'get', path: '/v1/docs', operationId: 'getDocs', summary: 'A readable page of this API', auth: 'none', ok: { 200: 'HTML' }, response: R.HTML, errors: [] },
  {
    method: 'post',
    path: '/v1/dev/token',
    operationId: 'devToken',
    summary: 'The local dev identity\'s bearer token, for the shell\'s one-click sign-in: only a local `wrangler dev` to a loopback client naming a loopback host (and, when it sends one, a loopback Origin), with header `X-Neuron-Dev-Login: 1`',
    auth: 'none',
    ok: { 200: 'the token and when it expires (epoch ms)' },
    response: R.DevToken,
    errors: ['DEV_LOGIN_REFUSED', 'DEV_LOGIN_FOREIGN_HOST', 'DEV_LOGIN_FOREIGN_ORIGIN'],
  },
  { method: 'get', path: '/v1/me', operationId: 'getMe', summary: 'The authenticated principal and its claims', auth: 'bearer', ok: { 200: 'the principal' }, response: R.Me, errors: [] },
  { method: 'get', path: '/v1/config', operationId: 'getConfig', summary: "The caller's config document, its version and ETag (version 0: never written)", auth: 'bearer', ok: { 200: 'the current version' }, response: R.ConfigVersion, errors: [] },
  {
    method: 'put',
    path: '/v1/config',
    operationId: 'putConfig',
    summary: 'Store a new version of the config document; If-Match must name the current ETag when given',
    auth: 'bearer',
    body: ConfigSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the stored version, with its ETag' },
    response: R.ConfigVersion,
    errors: [...BODY_ERRORS, 'INVALID_CONFIG', 'CONFIG_VERSION_MISMATCH'],
  },
  { method: 'get', path: '/v1/config/schema.json', operationId: 'getConfigSchema', summary: 'The JSON Schema of the config document (generated from the schema that validates it)', auth: 'bearer', ok: { 200: 'a JSON Schema' }, response: R.JsonSchema, errors: [] },
  { method: 'get', path: '/v1/config/credentials', operationId: 'listCredentials', summary: 'Which providers have a stored API key of the caller, and when it was set (never the key)', auth: 'bearer', ok: { 200: 'the list' }, response: R.Credentials, errors: [] },
  {
    method: 'put',
    path: '/v1/config/credentials/{provider}',
    operationId: 'putCredential',
    summary: "Store the caller's API key for a provider, sealed with the deployment secret; write-only",
    auth: 'bearer',
    body: CredentialBody,
    maxBodyBytes: MAX_CREDENTIAL_BYTES,
    ok: { 200: 'which provider and when (never the key)' },
    response: R.Credential,
    errors: [...REQUEST_ERRORS, 'UNKNOWN_PROVIDER', 'CREDENTIALS_NOT_CONFIGURED'],
  },
  { method: 'delete', path: '/v1/config/credentials/{provider}', operationId: 'deleteCredential', summary: "Remove the caller's stored key for a provider (a new version without it)", auth: 'bearer', ok: { 200: '{ provider, deleted }' }, response: R.CredentialDeleted, errors: ['UNKNOWN_PROVIDER'] },
  { method: 'get', path: '/v1/config/mcp', operationId: 'listMcpHeaders', summary: "Which of the caller's MCP servers have stored headers, when they were set and their names (never the values)", auth: 'bearer', ok: { 200: 'the list' }, response: R.McpHeaders, errors: [] },
  {
    method: 'put',
    path: '/v1/config/mcp/{server}/headers',
    operationId: 'putMcpHeaders',
    summary: "Store the headers (e.g. a bearer token) every request to the caller's MCP server carries, sealed with the deployment secret; write-only",
    auth: 'bearer',
    body: McpHeadersBody,
    maxBodyBytes: MAX_MCP_HEADERS_BYTES,
    ok: { 200: 'which server, when, and the header names' },
    response: R.McpHeaderSet,
    errors: [...REQUEST_ERRORS, 'MCP_HEADER_FORBIDDEN', 'CREDENTIALS_NOT_CONFIGURED'],
  },
  { method: 'delete', path: '/v1/config/mcp/{server}/headers', operationId: 'deleteMcpHeaders', summary: "Remove the stored headers of the caller's MCP server (a new version without them)", auth: 'bearer', ok: { 200: '{ server, deleted }' }, response: R.McpHeadersDeleted, errors: ['INVALID_REQUEST'] },
  { method: 'get', path: '/v1/config/mcp/oauth', operationId: 'listMcpOAuth', summary: "Which of the caller's MCP servers have an OAuth grant or a started authorization, and when the access token expires (never a token)", auth: 'bearer', ok: { 200: 'the list' }, response: R.McpOAuthList, errors: [] },
  {
    method: 'post',
    path: '/v1/config/mcp/{server}/oauth',
    operationId: 'startMcpOAuth',
    summary: "Start authorizing the caller's MCP server with OAuth: discovery, client registration, PKCE; answers the URL to open (the body is optional)",
    auth: 'bearer',
    body: McpOAuthStartBody,
    maxBodyBytes: MAX_MCP_OAUTH_BYTES,
    ok: { 200: 'the authorization URL and when it expires' },
    response: R.McpOAuthStarted,
    errors: [...REQUEST_ERRORS, 'MCP_SERVER_NOT_FOUND', 'MCP_URL_REFUSED', 'MCP_OAUTH_DISCOVERY_FAILED', 'MCP_OAUTH_CLIENT_REQUIRED', 'MCP_OAUTH_REGISTRATION_FAILED', 'MCP_OAUTH_UNSUPPORTED', 'CREDENTIALS_NOT_CONFIGURED'],
  },
  { method: 'delete', path: '/v1/config/mcp/{server}/oauth', operationId: 'forgetMcpOAuth', summary: "Forget the OAuth tokens and client registration of the caller's MCP server", auth: 'bearer', ok: { 200: '{ server, deleted }' }, response: R.McpHeadersDeleted, errors: ['INVALID_REQUEST'] },
  {
    method: 'get',
    path: '/v1/oauth/mcp/callback',
    operationId: 'mcpOAuthCallback',
    summary: 'Where the authorization server sends the browser back: the sealed, single-use state names the principal and server; the code is exchanged for tokens, which are stored sealed and never answered',
    auth: 'none',
    query: McpOAuthCallbackQuery,
    ok: { 200: '{ server, authorized: true }' },
    response: R.McpOAuthCompleted,
    errors: ['INVALID_REQUEST', 'MCP_OAUTH_STATE_INVALID', 'MCP_OAUTH_STATE_EXPIRED', 'MCP_OAUTH_DENIED', 'MCP_OAUTH_EXCHANGE_FAILED', 'MCP_URL_REFUSED', 'CREDENTIALS_NOT_CONFIGURED'],
  },
  {
    method: 'post',
    path: '/v1/mcp',
    operationId: 'mcp',
    summary: 'Neuron as an MCP server (Streamable HTTP, stateless, JSON answers): tools session_create, session_prompt, session_history, session_list, session_interrupt, acting as the caller',
    auth: 'bearer',
    body: McpMessage,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'a JSON-RPC response (a tool failure is a result with isError and { error: { code, message } })', 202: 'a notification or response, accepted' },
    response: R.JsonRpc,
    // The MCP transport reads the body itself: a message it cannot take is a JSON-RPC error, not a Neuron code.
    errors: ['PAYLOAD_TOO_LARGE'],
    failures: {
      400: { description: 'not JSON, or not a JSON-RPC message (-32700, -32600)', response: R.JsonRpcError },
      406: { description: 'Accept does not name both application/json and text/event-stream (-32000)', response: R.JsonRpcError },
      415: { description: 'Content-Type is not application/json (-32000)', response: R.JsonRpcError },
    },
  },
  { method: 'get', path: '/v1/mcp', operationId: 'mcpStream', summary: 'Not offered: the MCP endpoint is stateless and has no GET stream (405, Allow: POST)', auth: 'bearer', ok: {}, errors: ['METHOD_NOT_ALLOWED'] },
  { method: 'get', path: '/v1/me/usage', operationId: 'getUsage', summary: "The principal's metered requests and model usage", auth: 'bearer', ok: { 200: 'totals' }, response: R.Usage, errors: [] },
  {
    method: 'post',
    path: '/v1/sessions',
    operationId: 'createSession',
    summary: 'Create a session (client-chosen id allowed); the caller owns it',
    auth: 'bearer',
    body: CreateSessionSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'created', 200: 'the same session already existed' },
    response: R.SessionView,
    errors: [...BODY_ERRORS, 'INVALID_REQUEST', 'UNKNOWN_MODEL', 'PROVIDER_NOT_CONFIGURED', 'SESSION_EXISTS', 'SPAWN_REFUSED'],
  },
  { method: 'get', path: '/v1/sessions', operationId: 'listSessions', summary: "The caller's own sessions, oldest first, paged (live state: each session's view)", auth: 'bearer', query: PageQuery, ok: { 200: 'a page of listings' }, response: R.SessionListings, errors: ['INVALID_QUERY'] },
  { method: 'get', path: '/v1/sessions/{id}', operationId: 'getSession', summary: 'The session projection, folded from its log', auth: 'bearer', ok: { 200: 'the session' }, response: R.SessionView, errors: SESSION_ERRORS },
  {
    method: 'post',
    path: '/v1/sessions/{id}/prompt',
    operationId: 'promptSession',
    summary: 'Admit a prompt durably; never waits for execution',
    auth: 'bearer',
    body: PromptSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 202: 'admitted: the inbox receipt', 200: 'exact retry: the same receipt' },
    response: R.Receipt,
    errors: [...SESSION_ERRORS, ...BODY_ERRORS, 'INVALID_REQUEST', 'PROMPT_CONFLICT', 'INBOX_FULL'],
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/interrupt',
    operationId: 'interruptSession',
    summary: 'Record an interrupt naming the running turn (optional body), then stop it; pending prompts are kept',
    auth: 'bearer',
    body: InterruptSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'whether a turn was interrupted, which, and the control entry id' },
    response: R.Interrupted,
    errors: [...SESSION_ERRORS, ...BODY_ERRORS, 'INVALID_REQUEST'],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/mcp',
    operationId: 'listSessionMcpServers',
    summary: "The MCP servers the session's config lists, as the session last listed them: tools offered, tools refused, and the error of a server it cannot use (MCP_AUTH_REQUIRED: authorize it first)",
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.SessionMcpServers,
    errors: SESSION_ERRORS,
  },
  { method: 'get', path: '/v1/sessions/{id}/config', operationId: 'getSessionConfig', summary: "The session's config overrides (merged over its owner's document), their version and ETag", auth: 'bearer', ok: { 200: 'the current version' }, response: R.ConfigVersion, errors: SESSION_ERRORS },
  {
    method: 'put',
    path: '/v1/sessions/{id}/config',
    operationId: 'putSessionConfig',
    summary: "Store a new version of the session's overrides (its owner only: they decide where the owner's credentials go); it reaches the model at the next turn boundary",
    auth: 'bearer',
    body: ConfigSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the stored version, with its ETag' },
    response: R.ConfigVersion,
    errors: [...SESSION_ERRORS, ...BODY_ERRORS, 'INVALID_CONFIG', 'CONFIG_VERSION_MISMATCH', 'SESSION_CONFIG_OWNER_ONLY'],
  },
  { method: 'get', path: '/v1/sessions/{id}/history', operationId: 'getSessionHistory', summary: 'A finite page of durable events', auth: 'bearer', query: PageQuery, ok: { 200: 'a page' }, response: R.Page, errors: [...SESSION_ERRORS, 'INVALID_QUERY'] },
  {
    method: 'get',
    path: '/v1/sessions/{id}/denials',
    operationId: 'getSessionDenials',
    summary: 'Denied attempts on the session (owner only, at most 100 recorded an hour)',
    auth: 'bearer',
    query: PageQuery,
    ok: { 200: 'a page, plus how many denials this hour were counted but not stored' },
    response: R.Denials,
    errors: [...SESSION_ERRORS, 'DENIALS_OWNER_ONLY', 'INVALID_QUERY'],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/artifacts/{ref}',
    operationId: 'getSessionArtifact',
    summary: "One artifact of the session's store, as its events name it (a cut tool output's `artifact`, an epoch's `baseline`, a step's `tools`), with the media type it was stored with; kept as long as the session",
    auth: 'bearer',
    ok: { 200: 'the bytes' },
    response: { mediaType: '*/*', schema: { type: 'string', format: 'binary' } },
    errors: [...SESSION_ERRORS, 'INVALID_ARTIFACT_REF', 'ARTIFACT_NOT_FOUND'],
  },
  { method: 'post', path: '/v1/sessions/{id}/tickets', operationId: 'mintStreamTicket', summary: 'Mint a one-use, 30-second ticket for a stream of this session', auth: 'bearer', ok: { 201: '{ ticket, expiresAt }' }, response: R.Ticket, errors: SESSION_ERRORS },
  {
    method: 'get',
    path: '/v1/sessions/{id}/events',
    operationId: 'streamSessionEvents',
    summary: 'SSE: replay after `after` / Last-Event-ID, a replay-end marker, then the live tail',
    auth: 'bearer-or-ticket',
    query: StreamQuery,
    ok: { 200: 'text/event-stream' },
    response: R.EVENT_STREAM,
    errors: [...SESSION_ERRORS, 'INVALID_QUERY', 'TICKET_REPLAYED', 'TICKET_WRONG_SESSION'],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/ws',
    operationId: 'openSessionSocket',
    summary: 'WebSocket: subscribe from a sequence, prompt and interrupt on one socket (messages ≤ 1 MiB)',
    auth: 'bearer-or-ticket',
    query: StreamQuery,
    ok: { 101: 'switching protocols' },
    errors: [...SESSION_ERRORS, 'INVALID_QUERY', 'UPGRADE_REQUIRED', 'TICKET_REPLAYED', 'TICKET_WRONG_SESSION'],
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/fork',
    operationId: 'forkSession',
    summary: 'Start a new session from a past turn: its history is the prefix up to `at`; the original is untouched',
    auth: 'bearer',
    body: ForkSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'the new session' },
    response: R.SessionView,
    // UNKNOWN_NODE: the graph refused the fork's edge when asked before anything was written (objects/session/lineage.ts).
    errors: [...SESSION_ERRORS, ...REQUEST_ERRORS, 'SESSION_EXISTS', 'UNKNOWN_SEQUENCE', 'NOT_A_TURN_BOUNDARY', 'FORK_TOO_LONG', 'ARTIFACT_NOT_FOUND', 'UNKNOWN_NODE'],
  },
  {
    method: 'post',
    path: '/v1/sessions/{id}/truncate',
    operationId: 'truncateSession',
    summary: 'Truncate back to event `at` (a rest point): the model sees history up to there, the chain head points at that turn; the log keeps everything',
    auth: 'bearer',
    body: TruncateSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the turn node now at the head, and the truncated event' },
    response: R.Truncated,
    errors: [...SESSION_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_SEQUENCE', 'NOT_A_TURN_BOUNDARY', 'SESSION_BUSY', 'TRUNCATE_COMPACTED', 'UNKNOWN_NODE'],
  },
  {
    method: 'post',
    path: '/v1/graph/nodes',
    operationId: 'createNode',
    summary: 'Create a node (node.{kind}.{id}); the same node again is a no-op',
    auth: 'bearer',
    query: ScopeQuery,
    body: NodeBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 201: 'created', 200: 'the same node already existed' },
    response: R.GraphNode,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'NODE_EXISTS', 'TEXT_TOO_LARGE'],
  },
  { method: 'get', path: '/v1/graph/nodes/{address}', operationId: 'getNode', summary: "A node's state: the fold of its incident edges (current and history), paged", auth: 'bearer', query: FoldQuery, ok: { 200: 'the folded state' }, response: R.NodeState, errors: [...GRAPH_ERRORS, 'INVALID_ADDRESS', 'UNKNOWN_NODE'] },
  { method: 'get', path: '/v1/graph/nodes/{address}/neighbours', operationId: 'listNeighbours', summary: 'Live edges by type and direction, paged by sequence', auth: 'bearer', query: NeighbourQuery, ok: { 200: 'a page of edges' }, response: R.EdgePage, errors: [...GRAPH_ERRORS, 'INVALID_ADDRESS', 'UNKNOWN_NODE'] },
  { method: 'get', path: '/v1/graph/nodes/{address}/paths', operationId: 'listPaths', summary: 'Nodes reachable along live edges, nearest first, bounded depth', auth: 'bearer', query: PathQuery, ok: { 200: 'a page of reached nodes' }, response: R.PathPage, errors: [...GRAPH_ERRORS, 'INVALID_ADDRESS', 'UNKNOWN_NODE', 'INVALID_DEPTH'] },
  {
    method: 'post',
    path: '/v1/graph/edges',
    operationId: 'createEdge',
    summary: 'Append a typed edge (an envelope); `supersedes` revises an earlier edge of the same source',
    auth: 'bearer',
    query: ScopeQuery,
    body: EdgeBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 201: 'appended', 200: 'identical content was already there' },
    response: R.GraphEdge,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_NODE', 'SELF_EDGE', 'CYCLE', 'UNKNOWN_EDGE', 'EDGE_RETIRED', 'NOT_SAME_SOURCE'],
  },
  { method: 'get', path: '/v1/graph/edges/{id}', operationId: 'getEdge', summary: 'One edge, with its retirement if pruned or superseded', auth: 'bearer', query: ScopeQuery, ok: { 200: 'the edge' }, response: R.GraphEdge, errors: [...GRAPH_ERRORS, 'UNKNOWN_EDGE'] },
  {
    method: 'post',
    path: '/v1/graph/edges/{id}/prune',
    operationId: 'pruneEdge',
    summary: 'Prune an edge with a reason; history keeps it',
    auth: 'bearer',
    query: ScopeQuery,
    body: PruneBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 200: 'the retired edge' },
    response: R.GraphEdge,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_EDGE', 'EDGE_RETIRED'],
  },
  {
    method: 'post',
    path: '/v1/memory/remember',
    operationId: 'remember',
    summary: 'Remember a text: a knowledge node the memory node `remembers` (or `pins`)',
    auth: 'bearer',
    query: ScopeQuery,
    body: RememberBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 201: 'remembered', 200: 'already remembered' },
    response: R.Recalled,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_NODE', 'TEXT_TOO_LARGE', 'EMPTY_TEXT'],
  },
  {
    method: 'post',
    path: '/v1/memory/recall',
    operationId: 'recall',
    summary: 'Recall memories: FTS5 BM25 over their text, weighted by recency and edge type, with sources',
    auth: 'bearer',
    query: ScopeQuery,
    body: RecallBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 200: 'the best matches, best first' },
    response: R.Recalls,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'EMPTY_QUERY'],
  },
  {
    method: 'post',
    path: '/v1/memory/forget',
    operationId: 'forget',
    summary: 'Forget a memory (prune, or supersede with a replacement) with a reason; history keeps it',
    auth: 'bearer',
    query: ScopeQuery,
    body: ForgetBody,
    maxBodyBytes: MAX_GRAPH_BODY,
    ok: { 200: 'the retired memory edge, and the replacement if any' },
    response: R.Forgotten,
    errors: [...GRAPH_ERRORS, ...REQUEST_ERRORS, 'UNKNOWN_MEMORY', 'TEXT_TOO_LARGE', 'SAME_MEMORY', 'MEMORY_EXISTS'],
  },
  { method: 'get', path: '/v1/memory/pinned', operationId: 'listPinned', summary: 'The pinned memories (the `memory.pinned` context value)', auth: 'bearer', query: ScopeQuery, ok: { 200: 'pinned memories, oldest first' }, response: R.Recalls, errors: GRAPH_ERRORS },
  {
    method: 'post',
    path: '/v1/orchestrations',
    operationId: 'createOrchestration',
    summary: 'Create and start an orchestration from a goal and a plan (packages joined by `needs` edges)',
    auth: 'bearer',
    body: CreateOrchestrationSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'created', 200: 'the same orchestration already existed' },
    response: R.OrchestrationView,
    errors: [...BODY_ERRORS, 'INVALID_REQUEST', 'INVALID_PLAN', 'UNKNOWN_MODEL', 'PROVIDER_NOT_CONFIGURED', 'ORCHESTRATION_EXISTS', 'SPAWN_REFUSED'],
  },
  { method: 'get', path: '/v1/orchestrations/{id}', operationId: 'getOrchestration', summary: "The DAG with each package's beat, agent and burn", auth: 'bearer', ok: { 200: 'the orchestration' }, response: R.OrchestrationView, errors: ORCHESTRATION_ERRORS },
  {
    method: 'get',
    path: '/v1/orchestrations/{id}/history',
    operationId: 'getOrchestrationHistory',
    summary: 'A page of durable entries: decisions, or one sub-address (`control`, `dead`, `agent.{token}`)',
    auth: 'bearer',
    query: OrchestrationHistoryQuery,
    ok: { 200: 'a page' },
    response: R.Page,
    errors: [...ORCHESTRATION_ERRORS, 'INVALID_QUERY'],
  },
  {
    method: 'post',
    path: '/v1/orchestrations/{id}/cancel',
    operationId: 'cancelOrchestration',
    summary: 'Record a durable cancel entry for the orchestration or one package (an empty body cancels everything)',
    auth: 'bearer',
    body: CancelSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the packages cancelled and the control entry' },
    response: R.Cancelled,
    errors: [...ORCHESTRATION_ERRORS, ...BODY_ERRORS, 'INVALID_REQUEST', 'PACKAGE_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/v1/orchestrations/{id}/packages/{pkg}/clearance',
    operationId: 'decideClearance',
    summary: 'Grant or deny a package waiting on a human clearance (needs the `role:clearance` claim)',
    auth: 'bearer',
    body: ClearanceSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the orchestration after the decision' },
    response: R.OrchestrationView,
    errors: [...ORCHESTRATION_ERRORS, ...BODY_ERRORS, 'INVALID_REQUEST', 'PACKAGE_NOT_FOUND', 'CLEARANCE_CLAIM_REQUIRED', 'NOT_AWAITING_CLEARANCE'],
  },
  {
    method: 'get',
    path: '/v1/orchestrations/{id}/events',
    operationId: 'streamOrchestrationEvents',
    summary: 'SSE of the decisions: replay after `after` / Last-Event-ID, a replay-end marker, then the live tail',
    auth: 'bearer',
    query: StreamQuery,
    ok: { 200: 'text/event-stream' },
    response: R.EVENT_STREAM,
    errors: [...ORCHESTRATION_ERRORS, 'INVALID_QUERY'],
  },
  {
    method: 'get',
    path: '/v1/orchestrations/{id}/ws',
    operationId: 'openOrchestrationSocket',
    summary: 'WebSocket: { "type": "subscribe", "after": N } replays then tails the decisions',
    auth: 'bearer',
    query: StreamQuery,
    ok: { 101: 'switching protocols' },
    errors: [...ORCHESTRATION_ERRORS, 'INVALID_QUERY', 'UPGRADE_REQUIRED'],
  },
  {
    method: 'post',
    path: '/v1/ledgers/{name}/envelopes',
    operationId: 'appendEnvelope',
    summary: "Append an envelope to one of the caller's ledgers",
    auth: 'bearer',
    body: EnvelopeDraftSchema,
    maxBodyBytes: MAX_APPEND_BYTES,
    ok: { 201: 'appended', 200: 'identical content was already there' },
    response: R.Appended,
    errors: [...LEDGER_ERRORS, ...BODY_ERRORS, 'INVALID_ENVELOPE', 'RESERVED_HEADER', 'UNKNOWN_SCHEMA', 'SCHEMA_VIOLATION', 'ENVELOPE_TOO_LARGE', 'AUTHOR_MISMATCH'],
  },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes', operationId: 'listEnvelopes', summary: 'Query by topic, by type, or by time range; paged by sequence', auth: 'bearer', query: ListQuery, ok: { 200: 'a page' }, response: R.Page, errors: [...LEDGER_ERRORS, 'INVALID_QUERY'] },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes/{id}', operationId: 'getEnvelope', summary: 'One envelope by content id', auth: 'bearer', ok: { 200: 'the envelope' }, response: R.Envelope, errors: [...LEDGER_ERRORS, 'NOT_FOUND'] },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes/{id}/ancestors', operationId: 'listAncestors', summary: 'Walk causality upward, nearest first', auth: 'bearer', query: WalkQuery, ok: { 200: 'a page' }, response: R.Page, errors: [...LEDGER_ERRORS, 'INVALID_QUERY', 'NOT_FOUND'] },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes/{id}/descendants', operationId: 'listDescendants', summary: 'Walk causality downward, in sequence order', auth: 'bearer', query: WalkQuery, ok: { 200: 'a page' }, response: R.Page, errors: [...LEDGER_ERRORS, 'INVALID_QUERY', 'NOT_FOUND'] },
  { method: 'get', path: '/v1/ledgers/{name}/head', operationId: 'getLedgerHead', summary: 'The last sequence written (0 for a ledger never written)', auth: 'bearer', ok: { 200: '{ seq }' }, response: R.Head, errors: LEDGER_ERRORS },
  {
    method: 'put',
    path: '/v1/ledgers/{name}/schemas/{ref}',
    operationId: 'registerSchema',
    summary: 'Register a JSON Schema under an immutable ref (name@version); checked before it is stored',
    auth: 'bearer',
    body: SchemaBody,
    maxBodyBytes: MAX_SCHEMA_BYTES,
    ok: { 200: 'registered (or already identical)' },
    response: R.RegisteredSchema,
    errors: [...LEDGER_ERRORS, ...BODY_ERRORS, 'INVALID_SCHEMA', 'INVALID_SCHEMA_REF', 'SCHEMA_CONFLICT'],
  },
  ...APP_ROUTES,
]

/**
 * Codes any route can answer, all 500s: an unexpected failure (`INTERNAL`), a deployment whose
 * auth or model configuration is broken, and a spilled payload whose artifact is gone.
 */
export const COMMON_ERRORS = ['INTERNAL', 'AUTH_MISCONFIGURED', 'INVALID_CONFIG', 'ARTIFACT_MISSING']

/** The gate's refusals (401), common to every authenticated route. */
export const AUTH_ERRORS = [
  'TOKEN_MISSING',
  'TOKEN_MALFORMED',
  'TOKEN_ALG_REJECTED',
  'TOKEN_KID_UNKNOWN',
  'TOKEN_SIGNATURE_INVALID',
  'TOKEN_EXPIRED',
  'TOKEN_NOT_YET_VALID',
  'TOKEN_ISSUER_REJECTED',
  'TOKEN_AUDIENCE_REJECTED',
  'DEV_TOKEN_REFUSED',
]
