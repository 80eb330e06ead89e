/**
 * `/v1/ledgers/:name/…`: a named standalone ledger (the Rung 0 seed) over HTTP.
 * Append, the four query verbs, and schema registration. Ledgers live in the
 * caller's own namespace: `name` is resolved under the authenticated principal,
 * so no one reaches another principal's ledger. Appended envelopes carry the
 * gate's headers (principal, claims, decision).
 *
 * A ledger comes into being with its first write (an append or a schema). Until
 * then it reads as empty, answered here without addressing its object, so reads
 * of names that were never written leave no storage behind.
 */
import type { Context } from 'hono'
import { z } from 'zod'
import { authorize, type Caller, gateHeaders } from '../../objects/access/authorize.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_APPEND_BYTES, MAX_SCHEMA_BYTES } from '../../objects/core/limits.ts'
import { callerOf } from '../caller.ts'
import { exists, register } from '../../objects/directory/keys.ts'
import { isAddress } from '../../objects/ledger/address.ts'
import { EnvelopeDraftSchema } from '../../objects/ledger/envelope.ts'
import { envelopeNotFound } from '../../objects/ledger/ledger.ts'
import type { Page } from '../../objects/ledger/page.ts'
import { Paging } from '../../objects/delivery/queries.ts'
import type { LedgerObject } from '../../objects/ledger-object/ledger-object.ts'
import { settled } from '../../objects/core/rpc.ts'
import { Identifier, parseOrThrow } from '../../objects/core/validate.ts'
import type { AppEnv } from '../env.ts'
import { BODY_ERRORS } from '../openapi/body-errors.ts'
import * as R from '../openapi/responses.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'

/** Every ledger route resolves its name under the caller first. */
const LEDGER_ERRORS = ['INVALID_NAME']

/** `GET …/envelopes`: exactly one of topic, type or a time range, plus paging. */
export const ListQuery = z
  .strictObject({
    topic: z.string().refine(isAddress, 'must be an address: dot-separated segments of [A-Za-z0-9_:-]').optional(),
    type: z.string().optional(),
    from: z.coerce.number().int().optional(),
    to: z.coerce.number().int().optional(),
    ...Paging,
  })
  .refine((q) => [q.topic, q.type, q.from ?? q.to].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of topic, type, or from/to',
  })
/** The body of `PUT …/schemas/:ref`: a JSON Schema object (checked further when it is registered). */
export const SchemaBody = z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12) object')
/** Paging of the causality walks. */
export const WalkQuery = z.strictObject(Paging)

/**
 * The `/v1/ledgers` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * LEDGER_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const LEDGER_ROUTES = [
  route({
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
    handler: async (c) => {
      const draft = stamp(await readJson(c.req.raw), callerOf(c))
      // The draft's shape is checked here, so a malformed one registers nothing.
      parseOrThrow(EnvelopeDraftSchema, draft, 'INVALID_ENVELOPE')
      const appended = await written(c, (ledger) => ledger.append(draft))
      return c.json(appended, appended.duplicate ? 200 : 201)
    },
  }),
  route({
    method: 'get',
    path: '/v1/ledgers/{name}/envelopes',
    operationId: 'listEnvelopes',
    summary: 'Query by topic, by type, or by time range; paged by sequence',
    auth: 'bearer',
    query: ListQuery,
    ok: { 200: 'a page' },
    response: R.Page,
    errors: [...LEDGER_ERRORS, 'INVALID_QUERY'],
    handler: async (c) => {
      const q = parseOrThrow(ListQuery, c.req.query(), 'INVALID_QUERY')
      const ledger = await existing(c)
      if (!ledger) return c.json({ items: [], next: null } satisfies Page)
      const paging = { after: q.after, limit: q.limit }
      if (q.topic !== undefined) return c.json(await ledger.byTopic(q.topic, paging))
      if (q.type !== undefined) return c.json(await ledger.byType(q.type, paging))
      return c.json(await ledger.byTime(q.from ?? 0, q.to ?? Number.MAX_SAFE_INTEGER, paging))
    },
  }),
  route({
    method: 'get',
    path: '/v1/ledgers/{name}/envelopes/{id}',
    operationId: 'getEnvelope',
    summary: 'One envelope by content id',
    auth: 'bearer',
    ok: { 200: 'the envelope' },
    response: R.Envelope,
    errors: [...LEDGER_ERRORS, 'NOT_FOUND'],
    handler: async (c) => {
      const envelope = await (await envelopeOwner(c)).get(c.req.param('id'))
      if (!envelope) throw envelopeNotFound(c.req.param('id'))
      return c.json(envelope)
    },
  }),
  route({
    method: 'get',
    path: '/v1/ledgers/{name}/envelopes/{id}/ancestors',
    operationId: 'listAncestors',
    summary: 'Walk causality upward, nearest first',
    auth: 'bearer',
    query: WalkQuery,
    ok: { 200: 'a page' },
    response: R.Page,
    errors: [...LEDGER_ERRORS, 'INVALID_QUERY', 'NOT_FOUND'],
    handler: async (c) => {
      const q = parseOrThrow(WalkQuery, c.req.query(), 'INVALID_QUERY')
      return c.json(await (await envelopeOwner(c)).ancestors(c.req.param('id'), q))
    },
  }),
  route({
    method: 'get',
    path: '/v1/ledgers/{name}/envelopes/{id}/descendants',
    operationId: 'listDescendants',
    summary: 'Walk causality downward, in sequence order',
    auth: 'bearer',
    query: WalkQuery,
    ok: { 200: 'a page' },
    response: R.Page,
    errors: [...LEDGER_ERRORS, 'INVALID_QUERY', 'NOT_FOUND'],
    handler: async (c) => {
      const q = parseOrThrow(WalkQuery, c.req.query(), 'INVALID_QUERY')
      return c.json(await (await envelopeOwner(c)).descendants(c.req.param('id'), q))
    },
  }),
  route({
    method: 'get',
    path: '/v1/ledgers/{name}/head',
    operationId: 'getLedgerHead',
    summary: 'The last sequence written (0 for a ledger never written)',
    auth: 'bearer',
    ok: { 200: '{ seq }' },
    response: R.Head,
    errors: LEDGER_ERRORS,
    handler: async (c) => c.json({ seq: (await (await existing(c))?.head()) ?? 0 }),
  }),
  route({
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
    handler: async (c) => {
      const schema = parseOrThrow(SchemaBody, await readJson(c.req.raw), 'INVALID_SCHEMA')
      return c.json(await written(c, (ledger) => ledger.registerSchema(c.req.param('ref'), schema)))
    },
  }),
]

/** The `/v1/ledgers` router, mounted by worker/neuron.ts: `app.route('/v1/ledgers', ledgers)`. */
export const ledgers = mount('/v1/ledgers', LEDGER_ROUTES)

/** The directory key of the caller's ledger named in the path (validated). */
function keyOf(c: Context<AppEnv>): string {
  return `ledger:${callerOf(c).id}/${parseOrThrow(Identifier, c.req.param('name'), 'INVALID_NAME')}`
}

/** The caller's ledger if it was ever written, else `null` (its object is not addressed). */
async function existing(c: Context<AppEnv>) {
  const key = keyOf(c)
  return (await exists(c.env, key)) ? settled(c.env.LEDGER.getByName(key.slice('ledger:'.length))) : null
}

/** The ledger holding the envelope named in the path; 404 `NOT_FOUND` for a malformed id or an unwritten ledger. */
async function envelopeOwner(c: Context<AppEnv>) {
  const id = c.req.param('id')!
  const ledger = ENVELOPE_ID.test(id) ? await existing(c) : null
  if (!ledger) throw envelopeNotFound(id)
  return ledger
}

/**
 * Records that the caller's ledger exists, then runs a write on it. Registering first means a
 * request never writes durably and then fails; a write that is refused leaves at most a directory
 * entry for an empty ledger.
 */
async function written<T>(c: Context<AppEnv>, write: (ledger: DurableObjectStub<LedgerObject>) => Promise<T>): Promise<T> {
  const key = keyOf(c)
  await register(c.env, key)
  return write(settled(c.env.LEDGER.getByName(key.slice('ledger:'.length))))
}

const ENVELOPE_ID = /^[0-9a-f]{64}$/


/** Header keys only the gate injects; a client that sends one is refused. */
const RESERVED_HEADERS = new Set(['principal', 'claims', 'authz'])

/** The author is the caller (given or filled in), and the gate's headers ride along. */
function stamp(draft: unknown, caller: Caller): unknown {
  if (typeof draft !== 'object' || draft === null || Array.isArray(draft)) return draft
  const { author = caller.id, headers = [] } = draft as { author?: unknown; headers?: unknown }
  if (author !== caller.id) {
    throw new NeuronError('AUTHOR_MISMATCH', `author must be the authenticated principal ${caller.id}`, { status: 403, details: { author } })
  }
  const given = Array.isArray(headers) ? (headers as { key?: unknown }[]) : [headers as { key?: unknown }]
  const forged = given.find((header) => RESERVED_HEADERS.has(String(header?.key)))
  if (forged) {
    throw new NeuronError('RESERVED_HEADER', `header ${String(forged.key)} is written by the gate, not by clients`, {
      status: 400,
      details: { key: forged.key },
    })
  }
  const decision = authorize({ owner: caller.id, share: [] }, caller)
  return { ...draft, author, headers: [...given, ...gateHeaders(caller, decision)] }
}
