/**
 * `/v1/ledgers/:name/…`: a named standalone ledger (the Rung 0 seed) over HTTP.
 * Append, the four query verbs, and schema registration. Ledgers live in the
 * caller's own namespace: `name` is resolved under the authenticated principal,
 * so no one reaches another principal's ledger. Appended envelopes carry the
 * gate's headers (principal, claims, decision).
 */
import { type Context, Hono } from 'hono'
import { z } from 'zod'
import { authorize, type Caller, gateHeaders } from '../../objects/access/authorize.ts'
import { NeuronError } from '../../objects/errors.ts'
import { limitBody } from '../body-limit.ts'
import { MAX_APPEND_BYTES } from '../../objects/limits.ts'
import { callerOf } from '../caller.ts'
import { MAX_PAGE } from '../../objects/ledger/ledger.ts'
import { Identifier, parseOrThrow } from '../../objects/validate.ts'
import type { AppEnv } from '../env.ts'
import { readJson } from '../read-json.ts'


const Paging = {
  after: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
}
/** `GET …/envelopes`: exactly one of topic, type or a time range, plus paging. */
export const ListQuery = z
  .strictObject({
    topic: z.string().optional(),
    type: z.string().optional(),
    from: z.coerce.number().int().optional(),
    to: z.coerce.number().int().optional(),
    ...Paging,
  })
  .refine((q) => [q.topic, q.type, q.from ?? q.to].filter((v) => v !== undefined).length === 1, {
    message: 'give exactly one of topic, type, or from/to',
  })
/** Paging of the causality walks. */
export const WalkQuery = z.strictObject(Paging)

export const ledgers = new Hono<AppEnv>()
  .post(
    '/:name/envelopes',
    limitBody(MAX_APPEND_BYTES),
    async (c) => {
      const caller = callerOf(c)
      const draft = stamp(await readJson(c.req.raw), caller)
      const appended = await stub(c, c.req.param('name')).append(draft)
      return c.json(appended, appended.duplicate ? 200 : 201)
    },
  )
  .get('/:name/envelopes', async (c) => {
    const q = parseOrThrow(ListQuery, c.req.query(), 'INVALID_QUERY')
    const ledger = stub(c, c.req.param('name'))
    const paging = { after: q.after, limit: q.limit }
    if (q.topic !== undefined) return c.json(await ledger.byTopic(q.topic, paging))
    if (q.type !== undefined) return c.json(await ledger.byType(q.type, paging))
    return c.json(await ledger.byTime(q.from ?? 0, q.to ?? Number.MAX_SAFE_INTEGER, paging))
  })
  .get('/:name/envelopes/:id', async (c) => {
    const envelope = await stub(c, c.req.param('name')).get(c.req.param('id'))
    if (!envelope) throw new NeuronError('NOT_FOUND', `no envelope ${c.req.param('id')}`, { status: 404 })
    return c.json(envelope)
  })
  .get('/:name/envelopes/:id/ancestors', async (c) => {
    const q = parseOrThrow(WalkQuery, c.req.query(), 'INVALID_QUERY')
    return c.json(await stub(c, c.req.param('name')).ancestors(c.req.param('id'), q))
  })
  .get('/:name/envelopes/:id/descendants', async (c) => {
    const q = parseOrThrow(WalkQuery, c.req.query(), 'INVALID_QUERY')
    return c.json(await stub(c, c.req.param('name')).descendants(c.req.param('id'), q))
  })
  .get('/:name/head', async (c) => c.json({ seq: await stub(c, c.req.param('name')).head() }))
  .put('/:name/schemas/:ref', async (c) => {
    const schema = await readJson(c.req.raw)
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new NeuronError('INVALID_SCHEMA', 'a schema must be a JSON Schema object', { status: 400 })
    }
    return c.json(await stub(c, c.req.param('name')).registerSchema(c.req.param('ref'), schema as Record<string, unknown>))
  })

function stub(c: Context<AppEnv>, name: string) {
  return c.env.LEDGER.getByName(`${callerOf(c).id}/${parseOrThrow(Identifier, name, 'INVALID_NAME')}`)
}

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
