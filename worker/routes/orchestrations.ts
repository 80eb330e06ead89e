/**
 * `/v1/orchestrations`: create, read, history, cancel, a human's clearance
 * decision, and the two live streams (SSE and WebSocket, with the same resume
 * semantics as a session's). Each call carries the authenticated caller to the
 * orchestration's Durable Object, which authorizes it against the owner and the
 * shared claims; anyone else gets the 404 an unknown id gets. Only
 * orchestrations the directory knows are addressed.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { checkPlan } from '../../objects/orchestration/plan.ts'
import { orchestrationNotFound } from '../../objects/orchestration/orchestration-object.ts'
import { CreateOrchestrationSchema } from '../../objects/orchestration/schemas.ts'
import { settled } from '../../objects/core/rpc.ts'
import { forwardStream } from '../stream-forward.ts'
import { Identifier, parseOrThrow } from '../../objects/core/validate.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import { exists, register } from '../../objects/directory/keys.ts'
import type { Env } from '../../objects/core/env.ts'
import type { AppEnv } from '../env.ts'
import { readJson } from '../read-json.ts'
import { PageQuery } from '../../objects/delivery/queries.ts'

/** `?after=&limit=&address=` of the history route; `address` is a sub-address: `control`, `dead` or `agent.{token}`. */
export const OrchestrationHistoryQuery = PageQuery.extend({
  address: z.string().regex(/^(control|dead|agent\.[A-Za-z0-9_:-]+)$/, 'must be control, dead or agent.{token}').optional(),
})

export const orchestrations = new Hono<AppEnv>()
  .post('/', limitBody(MAX_BODY_BYTES), async (c) => {
    const body = await readJson(c.req.raw)
    const requested = (body as { id?: unknown } | null)?.id
    const id = requested === undefined ? crypto.randomUUID() : parseOrThrow(Identifier, requested, 'INVALID_REQUEST')
    // Checked here, then registered before the object writes: a bad plan writes nothing.
    const { plan } = parseOrThrow(CreateOrchestrationSchema, body, 'INVALID_REQUEST')
    if (plan) checkPlan(plan)
    await register(c.env, `orchestration:${id}`)
    const { orchestration, created } = await settled(c.env.ORCHESTRATIONS.getByName(id)).create(callerOf(c), body)
    return c.json(orchestration, created ? 201 : 200)
  })
  .get('/:id', async (c) => c.json(await (await stub(c.env, c.req.param('id'))).view(callerOf(c))))
  .get('/:id/history', async (c) => {
    const q = parseOrThrow(OrchestrationHistoryQuery, c.req.query(), 'INVALID_QUERY')
    return c.json(await (await stub(c.env, c.req.param('id'))).history(callerOf(c), q.after, q.limit, q.address))
  })
  .post('/:id/cancel', limitBody(MAX_BODY_BYTES), async (c) => {
    // An empty body cancels the whole orchestration with the default reason.
    const text = await c.req.raw.clone().text()
    const body = text.trim() === '' ? {} : await readJson(c.req.raw)
    return c.json(await (await stub(c.env, c.req.param('id'))).cancel(callerOf(c), body))
  })
  .post('/:id/packages/:pkg/clearance', limitBody(MAX_BODY_BYTES), async (c) => {
    const body = await readJson(c.req.raw)
    return c.json(await (await stub(c.env, c.req.param('id'))).decideClearance(callerOf(c), c.req.param('pkg'), body))
  })
  .get('/:id/events', (c) => forward(c))
  .get('/:id/ws', (c) => forward(c))

/** The stub of an existing orchestration; an unknown id is `ORCHESTRATION_NOT_FOUND` without addressing its object. */
async function stub(env: Env, id: string) {
  const valid = parseOrThrow(Identifier, id, 'INVALID_ORCHESTRATION_ID')
  if (!(await exists(env, `orchestration:${valid}`))) throw orchestrationNotFound(valid)
  return settled(env.ORCHESTRATIONS.getByName(valid))
}

/** Streams go to the object's fetch with the caller set by the gate; clients cannot supply these headers. */
async function forward(c: import('hono').Context<AppEnv>): Promise<Response> {
  return forwardStream(c, await stub(c.env, c.req.param('id')!))
}
