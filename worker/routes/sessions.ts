/**
 * `/v1/sessions`: create, list the caller's own (rename, archive), read, prompt, interrupt, permission requests and answers, history, denials, artifacts, config overrides, stream
 * tickets, and the two live streams (SSE and WebSocket). Each call carries the
 * authenticated caller to the session's Durable Object, which authorizes it
 * against the session's policy. Only sessions the directory knows are
 * addressed: an unknown id is 404 without creating the object's storage.
 */
import type { Context } from 'hono'
import { refuseReservedId } from '../../objects/session/agent/agent.ts'
import { InterruptSchema } from '../../objects/session/intake/control.ts'
import { PermissionAnswerSchema } from '../../objects/permission/approvals.ts'
import { ForkSchema, TruncateSchema } from '../../objects/session/lineage/fork.ts'
import { CreateSessionSchema, PromptSchema } from '../../objects/session/intake/schemas.ts'
import { PageQuery, StreamQuery } from '../../objects/delivery/queries.ts'
import { forwardStream } from '../stream-forward.ts'
import { settled } from '../../objects/core/rpc.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { parseJson } from '../../objects/core/parse-json.ts'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { ConfigSchema } from '../../objects/config/schema.ts'
import { callerOf } from '../caller.ts'
import { listSession, register } from '../../objects/directory/keys.ts'
import { createSession, listingOf, listSessions, markOwnSession, sessionStub, titleFork } from '../session-calls.ts'
import { parseMark, SessionListQuery, SessionMarkSchema } from '../../objects/directory/inputs.ts'
import type { AppEnv } from '../env.ts'
import { authenticatorFor } from '../gate/authenticate.ts'
import { BODY_ERRORS, REQUEST_ERRORS } from '../openapi/body-errors.ts'
import * as R from '../openapi/responses.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'

/** Every route naming a session resolves it first: a malformed or unknown id writes nothing. */
const SESSION_ERRORS = ['SESSION_NOT_FOUND', 'INVALID_SESSION_ID']

/**
 * The `/v1/sessions` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * SESSION_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const SESSION_ROUTES = [
  route({
    method: 'post',
    path: '/v1/sessions',
    operationId: 'createSession',
    summary: 'Create a session (client-chosen id allowed); the caller owns it',
    auth: 'bearer',
    body: CreateSessionSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'created', 200: 'the same session already existed' },
    response: R.SessionView,
    errors: [...BODY_ERRORS, 'INVALID_REQUEST', 'UNKNOWN_MODEL', 'UNKNOWN_AGENT', 'PROVIDER_NOT_CONFIGURED', 'SESSION_EXISTS', 'SPAWN_REFUSED'],
    handler: async (c) => {
      const { session, created } = await createSession(c.env, callerOf(c), await readJson(c.req.raw), c.get('extensions').agents)
      return c.json(session, created ? 201 : 200)
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions',
    operationId: 'listSessions',
    summary: "The caller's own sessions, paged: oldest first or newest first, archived or not, searched by title; `live` adds each listed session's status, last activity and pending approvals",
    auth: 'bearer',
    query: SessionListQuery,
    ok: { 200: 'a page of listings' },
    response: R.SessionListings,
    errors: ['INVALID_QUERY'],
    handler: async (c) => {
      const { q, archived, order, ...page } = parseOrThrow(SessionListQuery, c.req.query(), 'INVALID_QUERY')
      return c.json(await listSessions(c.env, callerOf(c), page, { q, archived, order }))
    },
  }),
  route({
    method: 'patch',
    path: '/v1/sessions/{id}',
    operationId: 'markSession',
    summary: "The owner renames, archives or restores a session in their listing (events folded latest wins; no change writes nothing)",
    auth: 'bearer',
    body: SessionMarkSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the listing as it is now' },
    response: R.SessionListed,
    errors: [...SESSION_ERRORS, ...BODY_ERRORS, 'INVALID_REQUEST', 'TITLE_TOO_LONG', 'SESSION_LISTING_OWNER_ONLY'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const mark = parseMark(body)
      const view = await (await sessionStub(c.env, c.req.param('id'))).view(callerOf(c))
      return c.json(await markOwnSession(c.env, callerOf(c), view, mark))
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}',
    operationId: 'getSession',
    summary: 'The session projection, folded from its log',
    auth: 'bearer',
    ok: { 200: 'the session' },
    response: R.SessionView,
    errors: SESSION_ERRORS,
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).view(callerOf(c))),
  }),
  route({
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
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const { receipt, duplicate } = await (await sessionStub(c.env, c.req.param('id'))).prompt(callerOf(c), body)
      return c.json(receipt, duplicate ? 200 : 202)
    },
  }),
  route({
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
    handler: async (c) => {
      // The body is optional: an empty one interrupts whatever runs now.
      const text = await c.req.text()
      const body = text === '' ? {} : parseJson(text)
      return c.json(await (await sessionStub(c.env, c.req.param('id'))).interrupt(callerOf(c), body))
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/permissions',
    operationId: 'listSessionPermissions',
    summary: "The permission requests of the session's tool calls waiting for the owner's answer, oldest first",
    auth: 'bearer',
    ok: { 200: 'the pending requests' },
    response: R.PendingPermissions,
    errors: SESSION_ERRORS,
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).permissions(callerOf(c))),
  }),
  route({
    method: 'post',
    path: '/v1/sessions/{id}/permissions',
    operationId: 'answerSessionPermission',
    summary: "Answer a pending permission request: once (run the call), always (also add the rule to the session's config), or reject (the call fails PERMISSION_DENIED); the same answer again is a duplicate that writes nothing",
    auth: 'bearer',
    body: PermissionAnswerSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the answer, recorded (or already recorded: duplicate)' },
    response: R.PermissionAnswered,
    errors: [...SESSION_ERRORS, ...BODY_ERRORS, 'INVALID_REQUEST', 'PERMISSION_OWNER_ONLY', 'PERMISSION_UNKNOWN', 'PERMISSION_SETTLED', 'INVALID_CONFIG'],
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).answerPermission(callerOf(c), await readJson(c.req.raw))),
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/mcp',
    operationId: 'listSessionMcpServers',
    summary: "The MCP servers the session's config lists, as the session last listed them: tools offered, tools refused, and the error of a server it cannot use (MCP_AUTH_REQUIRED: authorize it first)",
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.SessionMcpServers,
    errors: SESSION_ERRORS,
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).mcpServers(callerOf(c))),
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/config',
    operationId: 'getSessionConfig',
    summary: "The session's config overrides (merged over its owner's document), their version and ETag",
    auth: 'bearer',
    ok: { 200: 'the current version' },
    response: R.ConfigVersion,
    errors: SESSION_ERRORS,
    handler: async (c) => {
      const current = await (await sessionStub(c.env, c.req.param('id'))).config(callerOf(c))
      c.header('etag', current.etag)
      return c.json(current)
    },
  }),
  route({
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
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const stored = await (await sessionStub(c.env, c.req.param('id'))).putConfig(callerOf(c), body, c.req.header('if-match'))
      c.header('etag', stored.etag)
      return c.json(stored)
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/history',
    operationId: 'getSessionHistory',
    summary: 'A finite page of durable events',
    auth: 'bearer',
    query: PageQuery,
    ok: { 200: 'a page' },
    response: R.Page,
    errors: [...SESSION_ERRORS, 'INVALID_QUERY'],
    handler: async (c) => {
      const q = parseOrThrow(PageQuery, c.req.query(), 'INVALID_QUERY')
      return c.json(await (await sessionStub(c.env, c.req.param('id'))).history(callerOf(c), q.after, q.limit))
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/denials',
    operationId: 'getSessionDenials',
    summary: 'Denied attempts on the session (owner only, at most 100 recorded an hour)',
    auth: 'bearer',
    query: PageQuery,
    ok: { 200: 'a page, plus how many denials this hour were counted but not stored' },
    response: R.Denials,
    errors: [...SESSION_ERRORS, 'DENIALS_OWNER_ONLY', 'INVALID_QUERY'],
    handler: async (c) => {
      const q = parseOrThrow(PageQuery, c.req.query(), 'INVALID_QUERY')
      return c.json(await (await sessionStub(c.env, c.req.param('id'))).denials(callerOf(c), q.after, q.limit))
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/artifacts/{ref}',
    operationId: 'getSessionArtifact',
    summary: "One artifact of the session's store, as its events name it (a cut tool output's `artifact`, an epoch's `baseline`, a step's `tools`), with the media type it was stored with; kept as long as the session",
    auth: 'bearer',
    ok: { 200: 'the bytes' },
    response: { mediaType: '*/*', schema: { type: 'string', format: 'binary' } },
    errors: [...SESSION_ERRORS, 'INVALID_ARTIFACT_REF', 'ARTIFACT_NOT_FOUND'],
    handler: async (c) => {
      const { bytes, kind } = await (await sessionStub(c.env, c.req.param('id'))).readArtifact(callerOf(c), c.req.param('ref'))
      // Content-addressed: the same ref is always the same bytes.
      return new Response(bytes, { headers: { 'content-type': kind ?? 'application/octet-stream', etag: `"${c.req.param('ref')}"`, 'cache-control': 'private, max-age=31536000, immutable' } })
    },
  }),
  route({
    method: 'post',
    path: '/v1/sessions/{id}/tickets',
    operationId: 'mintStreamTicket',
    summary: 'Mint a one-use, 30-second ticket for a stream of this session',
    auth: 'bearer',
    ok: { 201: '{ ticket, expiresAt }' },
    response: R.Ticket,
    errors: SESSION_ERRORS,
    handler: async (c) => {
      const id = c.req.param('id')
      // Minting is an authorized read of the session: the object decides, then the gate signs.
      await (await sessionStub(c.env, id)).view(callerOf(c))
      return c.json(await authenticatorFor(c.env).mintTicket(c.get('principal'), id, c.get('authExp')), 201)
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/events',
    operationId: 'streamSessionEvents',
    summary: 'SSE: replay after `after` / Last-Event-ID, a replay-end marker, then the live tail',
    auth: 'bearer-or-ticket',
    query: StreamQuery,
    ok: { 200: 'text/event-stream' },
    response: R.EVENT_STREAM,
    errors: [...SESSION_ERRORS, 'INVALID_QUERY', 'TICKET_REPLAYED', 'TICKET_WRONG_SESSION'],
    handler: (c) => forward(c),
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/ws',
    operationId: 'openSessionSocket',
    summary: 'WebSocket: subscribe from a sequence, prompt and interrupt on one socket (messages ≤ 1 MiB)',
    auth: 'bearer-or-ticket',
    query: StreamQuery,
    ok: { 101: 'switching protocols' },
    errors: [...SESSION_ERRORS, 'INVALID_QUERY', 'UPGRADE_REQUIRED', 'TICKET_REPLAYED', 'TICKET_WRONG_SESSION'],
    handler: (c) => forward(c),
  }),
  route({
    method: 'post',
    path: '/v1/sessions/{id}/fork',
    operationId: 'forkSession',
    summary: 'Start a new session from a past turn: its history is the prefix up to `at`; the original is untouched',
    auth: 'bearer',
    body: ForkSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'the new session' },
    response: R.SessionView,
    // UNKNOWN_NODE: the graph refused the fork's edge when asked before anything was written (objects/session/lineage/lineage.ts).
    errors: [...SESSION_ERRORS, ...REQUEST_ERRORS, 'SESSION_EXISTS', 'UNKNOWN_SEQUENCE', 'NOT_A_TURN_BOUNDARY', 'FORK_TOO_LONG', 'ARTIFACT_NOT_FOUND', 'UNKNOWN_NODE'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      await sessionStub(c.env, c.req.param('id'))
      const { id = crypto.randomUUID() } = parseOrThrow(ForkSchema, body, 'INVALID_REQUEST')
      // Registered before the new object's first write, like a created session; never into an agent's name.
      await register(c.env, `session:${refuseReservedId(id)}`)
      const fork = await settled(c.env.SESSIONS.getByName(id)).forkFrom(callerOf(c), c.req.param('id'), body)
      await listSession(c.env, fork.owner, { ...listingOf(fork), forkedFrom: c.req.param('id') })
      await titleFork(c.env, callerOf(c), fork)
      return c.json(fork, 201)
    },
  }),
  route({
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
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      return c.json(await (await sessionStub(c.env, c.req.param('id'))).truncate(callerOf(c), body))
    },
  }),
]

/** The `/v1/sessions` router, mounted by worker/neuron.ts: `app.route('/v1/sessions', sessions)`. */
export const sessions = mount('/v1/sessions', SESSION_ROUTES)

/** Streams go to the object's fetch with the caller set by the gate; clients cannot supply these headers. */
async function forward(c: Context<AppEnv>): Promise<Response> {
  return forwardStream(c, await sessionStub(c.env, c.req.param('id')!))
}
