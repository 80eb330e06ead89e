import { runInDurableObject, evictDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { MAX_PENDING } from '../../objects/core/limits.ts'
import { admit } from '../../objects/session/intake/admission.ts'
import { PromptSchema } from '../../objects/session/intake/schemas.ts'
import type { SessionObject } from '../../objects/session/wiring/session-object.ts'
import { SNAPSHOT_EVERY } from '../../objects/session/events/snapshot.ts'
import { openSocket } from '../support/streams.ts'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'

const errorOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as { error: Record<string, unknown> } })

/** The object's in-memory state and what it keeps in storage for the next wake. */
function inside(stub: DurableObjectStub<SessionObject>) {
  return runInDurableObject(stub, (object: SessionObject, ctx) => {
    const state = (object as unknown as { state: Record<string, unknown> }).state
    const snapshot = ctx.storage.kv.get<{ v: number; state: { lastSeq: number; counts: { events: number } } }>('session.snapshot')
    return { state: JSON.parse(JSON.stringify(state)) as Record<string, unknown>, snapshot }
  })
}

describe('a session keeps bounded state, whatever its history', () => {
  it('the projection holds no per-message index: exact retries and conflicts are answered from storage, across a restart', async () => {
    const { id, stub } = await newSession('receipts')
    const receipts: unknown[] = []
    for (let i = 0; i < 5; i++) {
      const res = await postJson(`/v1/sessions/${id}/prompt`, { id: `m${i}`, text: `hello ${i}` })
      expect(res.status).toBe(202)
      receipts.push(await res.json())
    }
    await waitIdle(id)
    const { state } = await inside(stub)
    expect(state).not.toHaveProperty('admissions')
    expect(JSON.stringify(state).includes('hello 3')).toBe(false)
    await evictDurableObject(stub)
    const retry = await postJson(`/v1/sessions/${id}/prompt`, { id: 'm3', text: 'hello 3' })
    // 200, not 202: an exact retry gets the original receipt back and nothing is written.
    expect(retry.status).toBe(200)
    expect(await retry.json()).toEqual(receipts[3])
    const conflict = await postJson(`/v1/sessions/${id}/prompt`, { id: 'm3', text: 'something else' })
    expect(await errorOf(conflict)).toMatchObject({ status: 409, body: { error: { code: 'PROMPT_CONFLICT' } } })
    expect((await events(id)).filter((e) => e.type === 'session.next.admitted')).toHaveLength(5)
  })

  it('a wake folds only the events after the last snapshot, and ends in the same state as a full fold', async () => {
    const { id, stub } = await newSession('snapshot')
    const calls = Array.from({ length: 140 }, () => '/tool calculator {"expression":"2*3"}').join('\n')
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'many', text: calls })
    await waitIdle(id, 60_000)
    const before = await inside(stub)
    const count = (before.state.counts as { events: number }).events
    expect(count).toBeGreaterThan(SNAPSHOT_EVERY)
    expect(before.snapshot!.state.counts.events).toBe(Math.floor(count / SNAPSHOT_EVERY) * SNAPSHOT_EVERY)
    await evictDurableObject(stub)
    expect((await inside(stub)).state).toEqual(before.state)
    // Without a snapshot (a session from before snapshots), a wake folds from the start to the same state.
    await runInDurableObject(stub, (_object, ctx) => void ctx.storage.kv.delete('session.snapshot'))
    await evictDurableObject(stub)
    const refolded = await inside(stub)
    expect(refolded.state).toEqual(before.state)
    expect(refolded.snapshot).toBeDefined()
  })

  it('a session whose message index predates it is reindexed from the log on wake', async () => {
    const { id, stub } = await newSession('legacy')
    await postJson(`/v1/sessions/${id}/prompt`, { id: 'old', text: 'from before' })
    await waitIdle(id)
    await runInDurableObject(stub, (_object, ctx) => {
      ctx.storage.kv.delete('receipt:old')
      ctx.storage.kv.delete('session.snapshot')
    })
    await evictDurableObject(stub)
    const retry = await postJson(`/v1/sessions/${id}/prompt`, { id: 'old', text: 'from before' })
    expect(retry.status).toBe(200)
  })

  it('the inbox is bounded: past MAX_PENDING waiting prompts, admission refuses with INBOX_FULL', () => {
    const input = PromptSchema.parse({ id: 'one-more', text: 'x' })
    const full = { admitted: () => undefined, pending: MAX_PENDING }
    expect(() => admit('s', full, input)).toThrowError(expect.objectContaining({ code: 'INBOX_FULL', status: 429 }))
    expect(admit('s', { ...full, pending: MAX_PENDING - 1 }, input)).toHaveProperty('append')
    // An exact retry of an admitted prompt still gets its receipt when the inbox is full.
    expect(admit('s', { admitted: () => ({ seq: 4, digest: (admit('s', { admitted: () => undefined, pending: 0 }, input) as { append: { digest: string } }).append.digest }), pending: MAX_PENDING }, input)).toHaveProperty('receipt')
  })

  it('a stream request refused for another reason does not spend its ticket', async () => {
    const { id } = await newSession('ticket-kept', 'ada')
    const { ticket } = (await (await postJson(`/v1/sessions/${id}/tickets`, {}, 'ada')).json()) as { ticket: string }
    const noAuth = { authorization: '' }
    const notUpgraded = await api(`/v1/sessions/${id}/ws?ticket=${encodeURIComponent(ticket)}`, { headers: noAuth }, 'ada')
    expect(await errorOf(notUpgraded)).toMatchObject({ status: 426, body: { error: { code: 'UPGRADE_REQUIRED' } } })
    const socket = await openSocket(`/v1/sessions/${id}/ws?ticket=${encodeURIComponent(ticket)}`, 'ada', { headers: noAuth })
    socket.send({ type: 'subscribe', after: 0 })
    await socket.until((m) => m.some((x) => x.type === 'replay-end'))
    socket.close()
  })
})
