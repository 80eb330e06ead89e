import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { EventPayloads } from '../../objects/session/events/events.ts'
import { api, events, newSession, ownerCaller, postJson, waitIdle } from '../support/session.ts'

type Prompted = EventPayloads['session.next.prompted']
type Admitted = EventPayloads['session.next.admitted']

describe('sessions: create and read', () => {
  it('creates with a client-chosen id, reads the folded projection, and treats a re-create as a no-op', async () => {
    const first = await postJson('/v1/sessions', { id: 'chosen-1', title: 'hello' })
    expect(first.status).toBe(201)
    expect(await first.json()).toMatchObject({ id: 'chosen-1', title: 'hello', model: 'local/echo-1', status: 'idle', lastSequence: 1 })
    expect((await postJson('/v1/sessions', { id: 'chosen-1', title: 'hello' })).status).toBe(200)
    const conflict = await postJson('/v1/sessions', { id: 'chosen-1', title: 'other' })
    expect(conflict.status).toBe(409)
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe('SESSION_EXISTS')
    const read = await api('/v1/sessions/chosen-1')
    expect(await read.json()).toMatchObject({ id: 'chosen-1', counts: { events: 1, prompts: 0 } })
  })

  it('generates an id when none is given', async () => {
    const res = await postJson('/v1/sessions', {})
    expect(res.status).toBe(201)
    expect(((await res.json()) as { id: string }).id).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('sessions: admission', () => {
  it('admits durably before replying (202), answers an exact retry with the same receipt (200), refuses a conflicting reuse (409)', async () => {
    const { id } = await newSession()
    const first = await postJson(`/v1/sessions/${id}/prompt`, { id: 'm1', text: 'hello' })
    expect(first.status).toBe(202)
    const receipt = await first.json()
    expect(receipt).toEqual({ id: 'm1', session: id, sequence: 2, status: 'admitted' })
    const retry = await postJson(`/v1/sessions/${id}/prompt`, { id: 'm1', text: 'hello' })
    expect(retry.status).toBe(200)
    expect(await retry.json()).toEqual(receipt)
    const conflict = await postJson(`/v1/sessions/${id}/prompt`, { id: 'm1', text: 'hello!' })
    expect(conflict.status).toBe(409)
    expect(await conflict.json()).toMatchObject({ error: { code: 'PROMPT_CONFLICT', details: { id: 'm1', sequence: 2 } } })
    await waitIdle(id)
    const admitted = (await events(id)).filter((e) => e.type === 'session.next.admitted')
    expect(admitted).toHaveLength(1)
  })

  it('message ids that name Object.prototype members are ordinary ids', async () => {
    const { id } = await newSession()
    for (const messageId of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const res = await postJson(`/v1/sessions/${id}/prompt`, { id: messageId, text: `hello ${messageId}` })
      expect([messageId, res.status]).toEqual([messageId, 202])
    }
    await waitIdle(id)
  })

  it('50 concurrent prompts: each admitted once, executed once, serially, in admission order', async () => {
    const { id, stub } = await newSession()
    const receipts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => postJson(`/v1/sessions/${id}/prompt`, { id: `p${i}`, text: `prompt ${i}` }).then((r) => r.json())),
    )
    expect(new Set(receipts.map((r) => (r as { sequence: number }).sequence)).size).toBe(50)
    await waitIdle(id, 60_000)
    const log = await events(id)
    const admittedOrder = log.filter((e) => e.type === 'session.next.admitted').map((e) => (e.payload as Admitted).messageId)
    const promotedOrder = log.filter((e) => e.type === 'session.next.prompted').flatMap((e) => (e.payload as Prompted).messageIds)
    expect([...admittedOrder].sort()).toEqual(Array.from({ length: 50 }, (_, i) => `p${i}`).sort())
    expect(promotedOrder).toEqual(admittedOrder)
    // Serial: no step starts before the previous one has ended.
    let open = 0
    for (const e of log) {
      if (e.type === 'session.next.step.started') expect(open++).toBe(0)
      if (e.type === 'session.next.step.ended') open--
    }
    // Each prompt was answered exactly once, by its own echo.
    const texts = log.filter((e) => e.type === 'session.next.text').map((e) => (e.payload as { text: string }).text)
    expect(texts).toHaveLength(50)
    expect(new Set(texts).size).toBe(50)
    expect(await stub.view(ownerCaller)).toMatchObject({ status: 'idle', pending: 0, counts: { prompts: 50, steps: 50 } })
  })
})

describe('sessions: bad input gets its documented status and code', () => {
  const table: [string, () => Promise<Response>, number, string][] = [
    ['malformed JSON', () => api('/v1/sessions', { method: 'POST', body: '{' }), 400, 'INVALID_JSON'],
    ['an unknown create field', () => postJson('/v1/sessions', { name: 'x' }), 400, 'INVALID_REQUEST'],
    ['a bad session id', () => postJson('/v1/sessions', { id: 'has space' }), 400, 'INVALID_REQUEST'],
    ['an unknown model', () => postJson('/v1/sessions', { id: 'um', model: 'nobody/nothing' }), 400, 'UNKNOWN_MODEL'],
    ['a vendor without a key', () => postJson('/v1/sessions', { id: 'nk', model: 'anthropic/claude-sonnet-4-5' }), 400, 'PROVIDER_NOT_CONFIGURED'],
    ['a malformed model ref', () => postJson('/v1/sessions', { id: 'mm', model: 'justaname' }), 400, 'INVALID_REQUEST'],
    ['reading an unknown session', () => api('/v1/sessions/does-not-exist'), 404, 'SESSION_NOT_FOUND'],
    ['prompting an unknown session', () => postJson('/v1/sessions/does-not-exist/prompt', { text: 'x' }), 404, 'SESSION_NOT_FOUND'],
    ['tailing an unknown session', () => api('/v1/sessions/does-not-exist/events'), 404, 'SESSION_NOT_FOUND'],
    ['interrupting an unknown session', () => api('/v1/sessions/does-not-exist/interrupt', { method: 'POST' }), 404, 'SESSION_NOT_FOUND'],
    ['a prompt with neither text nor parts', () => postJson('/v1/sessions/chosen-1/prompt', { delivery: 'queue' }), 400, 'INVALID_REQUEST'],
    ['a prompt with both text and parts', () => postJson('/v1/sessions/chosen-1/prompt', { text: 'a', parts: [{ type: 'text', text: 'b' }] }), 400, 'INVALID_REQUEST'],
    ['an unknown delivery', () => postJson('/v1/sessions/chosen-1/prompt', { text: 'a', delivery: 'later' }), 400, 'INVALID_REQUEST'],
    ['a body over 1 MiB', () => postJson('/v1/sessions/chosen-1/prompt', { text: 'x'.repeat(1024 * 1024) }), 413, 'PAYLOAD_TOO_LARGE'],
    ['a history page over the cap', () => api('/v1/sessions/chosen-1/history?limit=100000'), 400, 'INVALID_QUERY'],
    ['a negative Last-Event-ID', () => api('/v1/sessions/chosen-1/events', { headers: { 'last-event-id': '-3' } }), 400, 'INVALID_QUERY'],
    ['a WebSocket route without upgrade', () => api('/v1/sessions/chosen-1/ws'), 426, 'UPGRADE_REQUIRED'],
  ]

  it.each(table)('%s → %i %s', async (_, send, status, code) => {
    await postJson('/v1/sessions', { id: 'chosen-1', title: 'hello' })
    const res = await send()
    expect(res.status).toBe(status)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code)
  })

  it('a rejected prompt writes nothing', async () => {
    const { id } = await newSession()
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'a', delivery: 'later' })
    await postJson(`/v1/sessions/${id}/prompt`, { text: 'x'.repeat(1024 * 1024) })
    expect((await env.SESSIONS.getByName(id).view(ownerCaller)).lastSequence).toBe(1)
  })
})
