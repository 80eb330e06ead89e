import { describe, expect, it } from 'vitest'
import { api } from '../support/api.ts'
import { idOf } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'

const call = api
const post = (path: string, body: string, as?: string) => api(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } }, as)

describe('ledger over HTTP', () => {
  it('appends (201), recognises an exact re-send (200), and reads back by topic', async () => {
    const name = uniqueName('http')
    const body = JSON.stringify({ topic: 'session.h', type: 'note', time: 1, payload: { n: 1 } })
    const first = await post(`/v1/ledgers/${name}/envelopes`, body)
    expect(first.status).toBe(201)
    const again = await post(`/v1/ledgers/${name}/envelopes`, body)
    expect(again.status).toBe(200)
    const { envelope } = (await first.json()) as { envelope: { id: string; seq: number } }
    expect(((await again.json()) as { duplicate: boolean }).duplicate).toBe(true)
    const page = await (await call(`/v1/ledgers/${name}/envelopes?topic=session.h`)).json()
    expect(page).toMatchObject({ items: [{ id: envelope.id, seq: 1, payload: { n: 1 }, author: idOf('ada') }], next: null })
    expect(await (await call(`/v1/ledgers/${name}/envelopes/${envelope.id}`)).json()).toMatchObject({ id: envelope.id })
    expect(await (await call(`/v1/ledgers/${name}/head`)).json()).toEqual({ seq: 1 })
  })

  it('validates payloads against schemas registered over HTTP', async () => {
    const name = uniqueName('http')
    const put = await call(`/v1/ledgers/${name}/schemas/point@1`, {
      method: 'PUT',
      body: JSON.stringify({ type: 'object', required: ['x'], properties: { x: { type: 'number' } } }),
    })
    expect(put.status).toBe(200)
    const bad = await post(`/v1/ledgers/${name}/envelopes`, JSON.stringify({ topic: 'agent.a', type: 'p', schema: 'point@1', payload: { x: 'no' } }))
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { code: 'SCHEMA_VIOLATION', details: { ref: 'point@1' } } })
  })

  const table: [string, () => Promise<Response>, number, string][] = [
    ['malformed JSON', () => post('/v1/ledgers/a/envelopes', '{"topic":'), 400, 'INVALID_JSON'],
    ['a draft with a bad topic', () => post('/v1/ledgers/a/envelopes', JSON.stringify({ topic: 'x y', type: 't' })), 400, 'INVALID_ENVELOPE'],
    ['an unknown field', () => post('/v1/ledgers/a/envelopes', JSON.stringify({ topic: 'x', type: 't', id: 'forged' })), 400, 'INVALID_ENVELOPE'],
    ['an unknown schema', () => post('/v1/ledgers/a/envelopes', JSON.stringify({ topic: 'x', type: 't', schema: 'nope@1' })), 400, 'UNKNOWN_SCHEMA'],
    ['a bad ledger name', () => call('/v1/ledgers/bad%20name/head'), 400, 'INVALID_NAME'],
    ['a query with two selectors', () => call('/v1/ledgers/a/envelopes?topic=x&type=y'), 400, 'INVALID_QUERY'],
    ['a limit over the page cap', () => call('/v1/ledgers/a/envelopes?topic=x&limit=5000'), 400, 'INVALID_QUERY'],
    ['an unknown envelope', () => call(`/v1/ledgers/a/envelopes/${'0'.repeat(64)}`), 404, 'NOT_FOUND'],
    ['an unknown route', () => call('/v1/nothing'), 404, 'NOT_FOUND'],
    ['a schema that is not an object', () => call('/v1/ledgers/a/schemas/s@1', { method: 'PUT', body: '[1]' }), 400, 'INVALID_SCHEMA'],
    ['an author other than the caller', () => post('/v1/ledgers/a/envelopes', JSON.stringify({ topic: 'x', type: 't', author: 'someone-else' })), 403, 'AUTHOR_MISMATCH'],
    ['a client-sent gate header', () => post('/v1/ledgers/a/envelopes', JSON.stringify({ topic: 'x', type: 't', headers: [{ key: 'principal', value: 'root' }] })), 400, 'RESERVED_HEADER'],
    ['a body over 16 MiB', () => post('/v1/ledgers/a/envelopes', 'x'.repeat(16 * 1024 * 1024 + 1)), 413, 'PAYLOAD_TOO_LARGE'],
  ]

  it('causality walks of an unknown or malformed id are 404 like a read of that id; ?topic= must be an address', async () => {
    const name = uniqueName('walk')
    const first = await post(`/v1/ledgers/${name}/envelopes`, JSON.stringify({ topic: 'a.b', type: 't', payload: 1 }))
    const { envelope } = (await first.json()) as { envelope: { id: string } }
    expect((await call(`/v1/ledgers/${name}/envelopes/${envelope.id}/descendants`)).status).toBe(200)
    for (const id of ['0'.repeat(64), 'not-an-id', envelope.id.toUpperCase()]) {
      for (const walk of ['ancestors', 'descendants', '']) {
        const res = await call(`/v1/ledgers/${name}/envelopes/${id}${walk ? `/${walk}` : ''}`)
        expect(res.status, `${walk} of ${id}`).toBe(404)
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND')
      }
    }
    for (const topic of ['a..b', 'a.', 'a b', '']) {
      const res = await call(`/v1/ledgers/${name}/envelopes?topic=${encodeURIComponent(topic)}`)
      expect(res.status, topic).toBe(400)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_QUERY')
    }
  })

  it('a ledger that was never written reads as empty', async () => {
    const name = uniqueName('never')
    expect(await (await call(`/v1/ledgers/${name}/head`)).json()).toEqual({ seq: 0 })
    expect(await (await call(`/v1/ledgers/${name}/envelopes?topic=a.b`)).json()).toEqual({ items: [], next: null })
    expect((await call(`/v1/ledgers/${name}/envelopes/${'0'.repeat(64)}/ancestors`)).status).toBe(404)
  })

  it.each(table)('%s → %i %s', async (_, send, status, code) => {
    const res = await send()
    expect(res.status).toBe(status)
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe(code)
    expect(body.error.message.length).toBeGreaterThan(0)
  })

  it('a rejected append writes nothing', async () => {
    const name = uniqueName('http')
    await post(`/v1/ledgers/${name}/envelopes`, JSON.stringify({ topic: 'x', type: 't', payload: { a: 1 }, extra: true }))
    expect(await (await call(`/v1/ledgers/${name}/head`)).json()).toEqual({ seq: 0 })
  })
})

describe('ledgers are per principal', () => {
  it("a ledger name resolves in the caller's own namespace; envelopes carry the gate's headers", async () => {
    const name = uniqueName('mine')
    await post(`/v1/ledgers/${name}/envelopes`, JSON.stringify({ topic: 'agent.a', type: 'note', payload: 1 }), 'ada')
    expect(await (await call(`/v1/ledgers/${name}/head`, {}, 'ada')).json()).toEqual({ seq: 1 })
    expect(await (await call(`/v1/ledgers/${name}/head`, {}, 'bob')).json()).toEqual({ seq: 0 })
    const page = (await (await call(`/v1/ledgers/${name}/envelopes?topic=agent.a`, {}, 'ada')).json()) as { items: { headers: { key: string; value: unknown }[] }[] }
    const headers = Object.fromEntries(page.items[0]!.headers.map((h) => [h.key, h.value]))
    expect(headers).toEqual({ principal: idOf('ada'), claims: [], authz: { stage: 'authorize', decision: 'allow', rule: 'owner', claims: [] } })
  })
})
