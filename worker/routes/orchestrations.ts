/**
 * `/v1/orchestrations`: create, read, history, cancel, a human's clearance
 * decision, and the two live streams (SSE and WebSocket, with the same resume
 * semantics as a session's). Each call carries the authenticated caller to the
 * orchestration's Durable Object, which authorizes it against the owner and the
 * shared claims; anyone else gets the 404 an unknown id gets. Only
 * orchestrations the directory knows are addressed; each is listed under its
 * owner once it exists (`GET /v1/orchestrations`), as its sessions are.
 */
import type { Context } from 'hono'
import { z } from 'zod'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { checkPlan } from '../../objects/orchestration/plan.ts'
import { requireAgents } from '../../objects/agents/resolve.ts'
import { configOf } from '../../objects/config/current.ts'
import { orchestrationNotFound } from '../../objects/orchestration/orchestration-object.ts'
import { CancelSchema, ClearanceSchema, CreateOrchestrationSchema } from '../../objects/orchestration/schemas.ts'
import { settled } from '../../objects/core/rpc.ts'
import { forwardStream } from '../stream-forward.ts'
import { Identifier, parseOrThrow } from '../../objects/core/validate.ts'
import { callerOf } from '../caller.ts'
import { exists, listOrchestration, orchestrationsOf, register } from '../../objects/directory/keys.ts'
import { LISTED_GOAL_CHARS } from '../../objects/directory/listing.ts'
import type { Env } from '../../objects/core/env.ts'
import type { AppEnv } from '../env.ts'
import { BODY_ERRORS } from '../openapi/body-errors.ts'
import * as R from '../openapi/responses.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'
import { PageQuery, StreamQuery } from '../../objects/delivery/queries.ts'

/** Every route naming an orchestration resolves it first: a malformed or unknown id writes nothing. */
const ORCHESTRATION_ERRORS = ['ORCHESTRATION_NOT_FOUND', 'INVALID_ORCHESTRATION_ID']

/** `?after=&limit=&address=` of the history route; `address` is a sub-address: `control`, `dead`, `workspace` or `agent.{token}`. */
export const OrchestrationHistoryQuery = PageQuery.extend({
  address: z.string().regex(/^(control|dead|workspace|agent\.[A-Za-z0-9_:-]+)$/, 'must be control, dead, workspace or agent.{token}').optional(),
})

/**
 * The `/v1/orchestrations` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * ORCHESTRATION_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const ORCHESTRATION_ROUTES = [
  route({
    method: 'post',
    path: '/v1/orchestrations',
    operationId: 'createOrchestration',
    summary: 'Create and start an orchestration from a goal and a plan (packages joined by `needs` edges)',
    auth: 'bearer',
    body: CreateOrchestrationSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'created', 200: 'the same orchestration already existed' },
    response: R.OrchestrationView,
    errors: [...BODY_ERRORS, 'INVALID_REQUEST', 'INVALID_PLAN', 'UNKNOWN_AGENT', 'UNKNOWN_MODEL', 'PROVIDER_NOT_CONFIGURED', 'ORCHESTRATION_EXISTS', 'SPAWN_REFUSED'],
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      const requested = (body as { id?: unknown } | null)?.id
      const id = requested === undefined ? crypto.randomUUID() : parseOrThrow(Identifier, requested, 'INVALID_REQUEST')
      // Checked here, then registered before the object writes: a bad plan writes nothing, nor
      // one naming an agent profile the caller does not see.
      const { plan } = parseOrThrow(CreateOrchestrationSchema, body, 'INVALID_REQUEST')
      if (plan) checkPlan(plan)
      const profiles = new Set((plan ?? []).flatMap((pkg) => (pkg.agent ? [pkg.agent] : [])))
      if (profiles.size > 0) requireAgents(profiles, c.get('extensions').agents, await configOf(c.env, callerOf(c).id))
      await register(c.env, `orchestration:${id}`)
      const { orchestration, created } = await settled(c.env.ORCHESTRATIONS.getByName(id)).create(callerOf(c), body)
      // Listed after it exists; an exact retry lists it again, a no-op, so a crash in between heals.
      if (orchestration.owner === callerOf(c).id) await listOrchestration(c.env, orchestration.owner, listingOf(orchestration))
      return c.json(orchestration, created ? 201 : 200)
    },
  }),
  route({
    method: 'get',
    path: '/v1/orchestrations',
    operationId: 'listOrchestrations',
    summary: "The caller's own orchestrations, oldest first, paged (live state: each one's view)",
    auth: 'bearer',
    query: PageQuery,
    ok: { 200: 'a page of listings' },
    response: R.OrchestrationListings,
    errors: ['INVALID_QUERY'],
    handler: async (c) => c.json(await orchestrationsOf(c.env, callerOf(c).id, parseOrThrow(PageQuery, c.req.query(), 'INVALID_QUERY'))),
  }),
  route({
    method: 'get',
    path: '/v1/orchestrations/{id}',
    operationId: 'getOrchestration',
    summary: "The DAG with each package's beat, agent and burn",
    auth: 'bearer',
    ok: { 200: 'the orchestration' },
    response: R.OrchestrationView,
    errors: ORCHESTRATION_ERRORS,
    handler: async (c) => c.json(await (await orchestrationStub(c.env, c.req.param('id'))).view(callerOf(c))),
  }),
  route({
    method: 'get',
    path: '/v1/orchestrations/{id}/history',
    operationId: 'getOrchestrationHistory',
    summary: 'A page of durable entries: decisions, or one sub-address (`control`, `dead`, `workspace`, `agent.{token}`)',
    auth: 'bearer',
    query: OrchestrationHistoryQuery,
    ok: { 200: 'a page' },
    response: R.Page,
    errors: [...ORCHESTRATION_ERRORS, 'INVALID_QUERY'],
    handler: async (c) => {
      const q = parseOrThrow(OrchestrationHistoryQuery, c.req.query(), 'INVALID_QUERY')
      return c.json(await (await orchestrationStub(c.env, c.req.param('id'))).history(callerOf(c), q.after, q.limit, q.address))
    },
  }),
  route({
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
    handler: async (c) => {
      // An empty body cancels the whole orchestration with the default reason.
      const text = await c.req.raw.clone().text()
      const body = text.trim() === '' ? {} : await readJson(c.req.raw)
      return c.json(await (await orchestrationStub(c.env, c.req.param('id'))).cancel(callerOf(c), body))
    },
  }),
  route({
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
    handler: async (c) => {
      const body = await readJson(c.req.raw)
      return c.json(await (await orchestrationStub(c.env, c.req.param('id'))).decideClearance(callerOf(c), c.req.param('pkg'), body))
    },
  }),
  route({
    method: 'get',
    path: '/v1/orchestrations/{id}/events',
    operationId: 'streamOrchestrationEvents',
    summary: 'SSE of the decisions: replay after `after` / Last-Event-ID, a replay-end marker, then the live tail',
    auth: 'bearer',
    query: StreamQuery,
    ok: { 200: 'text/event-stream' },
    response: R.EVENT_STREAM,
    errors: [...ORCHESTRATION_ERRORS, 'INVALID_QUERY'],
    handler: (c) => forward(c),
  }),
  route({
    method: 'get',
    path: '/v1/orchestrations/{id}/ws',
    operationId: 'openOrchestrationSocket',
    summary: 'WebSocket: { "type": "subscribe", "after": N } replays then tails the decisions',
    auth: 'bearer',
    query: StreamQuery,
    ok: { 101: 'switching protocols' },
    errors: [...ORCHESTRATION_ERRORS, 'INVALID_QUERY', 'UPGRADE_REQUIRED'],
    handler: (c) => forward(c),
  }),
]

/** The `/v1/orchestrations` router, mounted by worker/neuron.ts: `app.route('/v1/orchestrations', orchestrations)`. */
export const orchestrations = mount('/v1/orchestrations', ORCHESTRATION_ROUTES)

/** What the owner's listing keeps of an orchestration: what it was created with. */
function listingOf(view: { id: string; goal: string; createdAt: number }) {
  return { id: view.id, goal: (view.goal.split('\n')[0] ?? '').slice(0, LISTED_GOAL_CHARS), createdAt: view.createdAt }
}

/**
 * The stub of an existing orchestration; an unknown id is `ORCHESTRATION_NOT_FOUND` without addressing its object.
 *
 * @example
 * const view = await (await orchestrationStub(c.env, id)).view(callerOf(c))
 */
export async function orchestrationStub(env: Env, id: string) {
  const valid = parseOrThrow(Identifier, id, 'INVALID_ORCHESTRATION_ID')
  if (!(await exists(env, `orchestration:${valid}`))) throw orchestrationNotFound(valid)
  return settled(env.ORCHESTRATIONS.getByName(valid))
}

/** Streams go to the object's fetch with the caller set by the gate; clients cannot supply these headers. */
async function forward(c: Context<AppEnv>): Promise<Response> {
  return forwardStream(c, await orchestrationStub(c.env, c.req.param('id')!))
}
