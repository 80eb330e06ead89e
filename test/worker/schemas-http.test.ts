/**
 * Schema registration refuses what could later break or stall an append: a
 * pattern that does not compile or has no linear-time meaning (lookaround,
 * backreferences), an unresolvable `$ref`, a body over the limit, subschemas
 * nested too deep. Patterns that backtrack in V8 run on RE2 and are accepted. A
 * refused schema is never stored, so an append naming it is `UNKNOWN_SCHEMA`,
 * never a 500.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH } from '../../objects/core/limits.ts'
import { api } from '../support/api.ts'
import { idOf } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'

const put = (ledger: string, ref: string, schema: unknown) =>
  api(`/v1/ledgers/${ledger}/schemas/${ref}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: typeof schema === 'string' ? schema : JSON.stringify(schema) })
const append = (ledger: string, body: unknown) =>
  api(`/v1/ledgers/${ledger}/envelopes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; details?: { path?: string; reason?: string } } }).error

const nestedNot = (depth: number): unknown => (depth === 0 ? { type: 'string' } : { not: nestedNot(depth - 1) })

describe('schema registration', () => {
  const refused: [string, unknown, string][] = [
    ['a pattern that does not compile', { type: 'string', pattern: '(unclosed' }, '$.pattern'],
    ['a patternProperties key that does not compile', { type: 'object', patternProperties: { '[z-a]': { type: 'string' } } }, '$.patternProperties'],
    ['an unresolvable $ref', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, '$.properties.a.$ref'],
    ['a $ref to another document', { $ref: 'https://example.com/other.json' }, '$.$ref'],
    ['a lookahead', { type: 'string', pattern: '^(?=a)a+$' }, '$.pattern'],
    ['a lookbehind in a nested property', { type: 'object', properties: { name: { type: 'string', pattern: '(?<!x)a$' } } }, '$.properties.name.pattern'],
    ['a backreference', { type: 'string', pattern: '^(a)\\1$' }, '$.pattern'],
    ['subschemas nested past the limit', nestedNot(MAX_SCHEMA_DEPTH), '$' + '.not'.repeat(MAX_SCHEMA_DEPTH)],
  ]

  it.each(refused)('refuses %s with INVALID_SCHEMA; an append naming it is UNKNOWN_SCHEMA, never a 500', async (_, schema, path) => {
    const ledger = uniqueName('schema')
    const res = await put(ledger, 'bad@1', schema)
    expect(res.status).toBe(400)
    const error = await errorOf(res)
    expect(error.code).toBe('INVALID_SCHEMA')
    expect(error.details?.path).toBe(path)
    const appended = await append(ledger, { topic: 'a.b', type: 't', schema: 'bad@1', payload: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab' })
    expect(appended.status).toBe(400)
    expect((await errorOf(appended)).code).toBe('UNKNOWN_SCHEMA')
  })

  it('accepts local $refs and safe patterns, and validates with them', async () => {
    const ledger = uniqueName('schema')
    const schema = {
      type: 'object',
      $defs: { slug: { type: 'string', pattern: '^[a-z0-9-]+$' } },
      properties: { id: { $ref: '#/$defs/slug' }, phone: { type: 'string', pattern: '^(\\+|00)?\\d{6,15}$' } },
      required: ['id'],
    }
    expect((await put(ledger, 'thing@1', schema)).status).toBe(200)
    expect((await append(ledger, { topic: 'a.b', type: 't', schema: 'thing@1', payload: { id: 'ok-1', phone: '+4930123456' } })).status).toBe(201)
    const bad = await append(ledger, { topic: 'a.b', type: 't', schema: 'thing@1', payload: { id: 'Not OK' } })
    expect((await errorOf(bad)).code).toBe('SCHEMA_VIOLATION')
  })

  it('a schema body over the limit is 413 before it is read', async () => {
    const big = JSON.stringify({ type: 'string', description: 'x'.repeat(MAX_SCHEMA_BYTES) })
    const res = await put(uniqueName('schema'), 'big@1', big)
    expect(res.status).toBe(413)
    expect((await errorOf(res)).code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('a refused registration leaves the ref free for a good schema', async () => {
    const ledger = uniqueName('schema')
    expect((await put(ledger, 'name@1', { type: 'string', pattern: '^(?=a)a+$' })).status).toBe(400)
    // A pattern V8 would backtrack on exponentially runs on RE2, in time linear in the payload.
    expect((await put(ledger, 'name@1', { type: 'string', pattern: '^(a+)+$' })).status).toBe(200)
    const started = Date.now()
    const res = await append(ledger, { topic: 'a.b', type: 't', schema: 'name@1', payload: `${'a'.repeat(50_000)}b` })
    expect((await errorOf(res)).code).toBe('SCHEMA_VIOLATION')
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})

describe('schemas stored before registration checked them', () => {
  it('a stored pattern the engine refuses is refused at first use (400 INVALID_SCHEMA), never run', async () => {
    const ledger = uniqueName('legacy')
    // Registered the way an older version would have: straight into the table.
    expect((await append(ledger, { topic: 'a.b', type: 't' })).status).toBe(201)
    await runInDurableObject(env.LEDGER.getByName(`${idOf('ada')}/${ledger}`), (_o, state) => {
      state.storage.sql.exec("insert into schema_registry (ref, plane, json_schema, hash, time) values ('old@1', 3, '{\"pattern\":\"^(?=a)(a+)+$\",\"type\":\"string\"}', 'x', 0)")
    })
    const started = Date.now()
    const res = await append(ledger, { topic: 'a.b', type: 't', schema: 'old@1', payload: `${'a'.repeat(24)}b` })
    expect(res.status).toBe(400)
    expect((await errorOf(res)).code).toBe('INVALID_SCHEMA')
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})
