/**
 * `/v1/sessions`: create, list the caller's own, read, prompt, interrupt, history, denials, artifacts, config overrides, stream
 * tickets, and the two live streams (SSE and WebSocket). Each call carries the
 * authenticated caller to the session's Durable Object, which authorizes it
 * against the session's policy. Only sessions the directory knows are
 * addressed: an unknown id is 404 without creating the object's storage.
 */
import { Hono } from 'hono'
import { refuseReservedId } from '../../objects/session/agent.ts'
import { ForkSchema } from '../../objects/session/fork.ts'
import { PageQuery } from '../../objects/delivery/queries.ts'
import { forwardStream } from '../stream-forward.ts'
import { settled } from '../../objects/core/rpc.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { parseJson } from '../../objects/core/parse-json.ts'
import { limitBody } from '../body-limit.ts'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { callerOf } from '../caller.ts'
import { listSession, register } from '../../objects/directory/keys.ts'
import { createSession, listingOf, listSessions, sessionStub } from '../session-calls.ts'
import type { AppEnv } from '../env.ts'
import { authenticatorFor } from '../gate/authenticate.ts'
import { readJson } from '../read-json.ts'


export const sessions = new Hono<AppEnv>()
  .post('/', limitBody(MAX_BODY_BYTES), async (c) => {
    const { session, created } = await createSession(c.env, callerOf(c), await readJson(c.req.raw))
    return c.json(session, created ? 201 : 200)
  })
  .get('/', async (c) => {
    const q = parseOrThrow(PageQuery, c.req.query(), 'INVALID_QUERY')
    return c.json(await listSessions(c.env, callerOf(c), q))
  })
  .get('/:id', async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).view(callerOf(c))))
  .post('/:id/prompt', limitBody(MAX_BODY_BYTES), async (c) => {
    const body = await readJson(c.req.raw)
    const { receipt, duplicate } = await (await sessionStub(c.env, c.req.param('id'))).prompt(callerOf(c), body)
    return c.json(receipt, duplicate ? 200 : 202)
  })
  .post('/:id/interrupt', limitBody(MAX_BODY_BYTES), async (c) => {
    // The body is optional: an empty one interrupts whatever runs now.
    const text = await c.req.text()
    const body = text === '' ? {} : parseJson(text)
    return c.json(await (await sessionStub(c.env, c.req.param('id'))).interrupt(callerOf(c), body))
  })
  .get('/:id/history', async (c) => {
    const q = parseOrThrow(PageQuery, c.req.query(), 'INVALID_QUERY')
    return c.json(await (await sessionStub(c.env, c.req.param('id'))).history(callerOf(c), q.after, q.limit))
  })
  .get('/:id/denials', async (c) => {
    const q = parseOrThrow(PageQuery, c.req.query(), 'INVALID_QUERY')
    return c.json(await (await sessionStub(c.env, c.req.param('id'))).denials(callerOf(c), q.after, q.limit))
  })
  .post('/:id/tickets', async (c) => {
    const id = c.req.param('id')
    // Minting is an authorized read of the session: the object decides, then the gate signs.
    await (await sessionStub(c.env, id)).view(callerOf(c))
    return c.json(await authenticatorFor(c.env).mintTicket(c.get('principal'), id, c.get('authExp')), 201)
  })
  .post('/:id/fork', limitBody(MAX_BODY_BYTES), async (c) => {
    const body = await readJson(c.req.raw)
    await sessionStub(c.env, c.req.param('id'))
    const { id = crypto.randomUUID() } = parseOrThrow(ForkSchema, body, 'INVALID_REQUEST')
    // Registered before the new object's first write, like a created session; never into an agent's name.
    await register(c.env, `session:${refuseReservedId(id)}`)
    const fork = await settled(c.env.SESSIONS.getByName(id)).forkFrom(callerOf(c), c.req.param('id'), body)
    await listSession(c.env, fork.owner, { ...listingOf(fork), forkedFrom: c.req.param('id') })
    return c.json(fork, 201)
  })
  .post('/:id/truncate', limitBody(MAX_BODY_BYTES), async (c) => {
    const body = await readJson(c.req.raw)
    return c.json(await (await sessionStub(c.env, c.req.param('id'))).truncate(callerOf(c), body))
  })
  .get('/:id/artifacts/:ref', async (c) => {
    const { bytes, kind } = await (await sessionStub(c.env, c.req.param('id'))).readArtifact(callerOf(c), c.req.param('ref'))
    // Content-addressed: the same ref is always the same bytes.
    return new Response(bytes, { headers: { 'content-type': kind ?? 'application/octet-stream', etag: `"${c.req.param('ref')}"`, 'cache-control': 'private, max-age=31536000, immutable' } })
  })
  .get('/:id/mcp', async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).mcpServers(callerOf(c))))
  .get('/:id/config', async (c) => {
    const current = await (await sessionStub(c.env, c.req.param('id'))).config(callerOf(c))
    c.header('etag', current.etag)
    return c.json(current)
  })
  .put('/:id/config', limitBody(MAX_BODY_BYTES), async (c) => {
    const body = await readJson(c.req.raw)
    const stored = await (await sessionStub(c.env, c.req.param('id'))).putConfig(callerOf(c), body, c.req.header('if-match'))
    c.header('etag', stored.etag)
    return c.json(stored)
  })
  .get('/:id/events', (c) => forward(c))
  .get('/:id/ws', (c) => forward(c))

/** Streams go to the object's fetch with the caller set by the gate; clients cannot supply these headers. */
async function forward(c: import('hono').Context<AppEnv>): Promise<Response> {
  return forwardStream(c, await sessionStub(c.env, c.req.param('id')!))
}
