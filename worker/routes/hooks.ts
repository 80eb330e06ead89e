/**
 * Webhooks in (docs/schedules.md#webhooks-in): a session's owner creates a hook
 * (`POST /v1/sessions/{id}/hooks`, its secret answered once) and lists them; an outside sender
 * posts signed deliveries to `POST /v1/hooks/{id}`, open at the gate because its HMAC signature is
 * its credential, checked by the session that holds the sealed secret. Unsigned, badly signed,
 * stale and replayed deliveries are 401 with their codes, nothing written.
 */
import { HOOK_LIMITS, MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { CreateHookSchema } from '../../objects/session/hooks/schema.ts'
import { callerOf } from '../caller.ts'
import { BODY_ERRORS } from '../openapi/body-errors.ts'
import * as R from '../openapi/responses.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'
import { sessionStub } from '../session-calls.ts'

const str = { type: 'string' }
const Hook = { type: 'object', required: ['name', 'id', 'template', 'delivery', 'by'], properties: { name: str, id: { ...str, description: 'POST /v1/hooks/{id}' }, template: str, delivery: str, by: str } }
const SIGNATURE_ERRORS = ['HOOK_UNSIGNED', 'HOOK_SIGNATURE', 'HOOK_STALE', 'HOOK_REPLAYED']

/**
 * The hook routes, declared once with their handlers.
 *
 * @example
 * HOOK_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const HOOK_ROUTES = [
  route({
    method: 'get',
    path: '/v1/sessions/{id}/hooks',
    operationId: 'listHooks',
    summary: "The session's hooks (never their secrets)",
    auth: 'bearer',
    ok: { 200: 'the hooks' },
    response: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: Hook } } },
    errors: ['SESSION_NOT_FOUND', 'INVALID_SESSION_ID'],
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).listHooks(callerOf(c))),
  }),
  route({
    method: 'post',
    path: '/v1/sessions/{id}/hooks',
    operationId: 'createHook',
    summary: 'Create a hook: signed deliveries to it become prompts through its template; its secret is in this answer only',
    auth: 'bearer',
    body: CreateHookSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 201: 'created, with its secret' },
    response: { type: 'object', required: ['hook', 'secret'], properties: { hook: Hook, secret: str } },
    errors: ['SESSION_NOT_FOUND', 'INVALID_SESSION_ID', ...BODY_ERRORS, 'INVALID_HOOK', 'HOOK_EXISTS', 'HOOK_LIMIT', 'HOOK_OWNER_ONLY', 'CREDENTIALS_NOT_CONFIGURED'],
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).createHook(callerOf(c), await readJson(c.req.raw)), 201),
  }),
  route({
    method: 'post',
    path: '/v1/hooks/{id}',
    operationId: 'receiveHook',
    summary: 'A signed delivery (x-neuron-timestamp, x-neuron-delivery, x-neuron-signature: sha256=HMAC(secret, "{timestamp}.{delivery}.{body}")): admitted once per delivery id',
    auth: 'none',
    rawBody: { mediaType: 'application/json', schema: { description: 'any JSON value the sender sends; placed into the hook template' } },
    maxBodyBytes: HOOK_LIMITS.bodyBytes,
    ok: { 202: 'admitted: the inbox receipt', 200: "the sender's retry of a delivery: the same receipt" },
    response: R.Receipt,
    errors: [...SIGNATURE_ERRORS, 'JSON_TOO_DEEP', 'INVALID_JSON', 'NOT_JSON_COMPATIBLE', 'PAYLOAD_TOO_LARGE', 'INBOX_FULL'],
    handler: async (c) => {
      const id = c.req.param('id')
      const cut = id.indexOf('~')
      // An id that names no session's hook is refused as a bad signature is: nothing says which hooks exist.
      if (cut <= 0) throw new NeuronError('HOOK_SIGNATURE', 'the signature does not match this hook', { status: 401 })
      const stub = await sessionStub(c.env, id.slice(0, cut)).catch(() => {
        throw new NeuronError('HOOK_SIGNATURE', 'the signature does not match this hook', { status: 401 })
      })
      const headers = { timestamp: c.req.header('x-neuron-timestamp'), delivery: c.req.header('x-neuron-delivery'), signature: c.req.header('x-neuron-signature') }
      const { receipt, duplicate } = await stub.receiveHook(id.slice(cut + 1), headers, await c.req.text())
      return c.json(receipt, duplicate ? 200 : 202)
    },
  }),
]

/** The session side, mounted at `/v1/sessions`. */
export const sessionHooks = mount('/v1/sessions', HOOK_ROUTES.slice(0, 2))
/** The open delivery route, mounted at `/v1/hooks`. */
export const hooks = mount('/v1/hooks', HOOK_ROUTES.slice(2))
