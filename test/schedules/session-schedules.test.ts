/**
 * A session's schedules on a real session object with a clock of the test's own (set on the
 * object, read by its timers and its schedules; a year ahead, so the platform never fires an alarm
 * set here by itself): each kind fires through `runDurableObjectAlarm` and admits its prompt once,
 * under the id derived from (schedule, fire time); a retried alarm admits nothing more; a cron
 * schedule follows its zone across a daylight-saving change; each missed-fire policy shows in its
 * event; a delete racing a fire leaves one outcome; refusals carry codes and write nothing.
 */
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { SCHEDULE_LIMITS } from '../../objects/core/limits.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import type { SessionObject } from '../../objects/session/wiring/session-object.ts'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'
import { countRows } from '../support/rows.ts'

const MIN = 60_000
const T0 = Math.ceil((Date.now() + 365 * 24 * 3_600_000) / MIN) * MIN

type Clocked = { clock: () => number }

/** A fresh session whose object reads `clock.now`. */
async function clocked(start = T0) {
  const session = await newSession('sched')
  const clock = { now: start }
  await runInDurableObject(session.stub, (object: SessionObject) => {
    ;(object as unknown as Clocked).clock = () => clock.now
  })
  return { ...session, clock }
}

const create = (id: string, body: unknown) => postJson(`/v1/sessions/${id}/schedules`, body)
const list = async (id: string) => ((await (await api(`/v1/sessions/${id}/schedules`)).json()) as { items: { id: string; next: number; fired: number; last: unknown }[] }).items
const admitted = async (id: string) => (await events(id)).filter((e) => e.type === 'session.next.admitted').map((e) => (e.payload as { messageId: string; text: string }))
/** The `schedule.fired` events of the session's schedules address. */
async function fired(stub: DurableObjectStub<SessionObject>) {
  return runInDurableObject(stub, (object: SessionObject) => {
    const ledger = (object as unknown as { ledger: { byTopic(t: string, o: object): { items: Stored[] } } }).ledger
    const name = (object as unknown as { name: string }).name
    return JSON.parse(JSON.stringify(ledger.byTopic(`session.${name}.schedules`, { limit: 1000 }).items.filter((e) => e.type === 'schedule.fired').map((e) => e.payload)))
  }) as Promise<{ id: string; due: number; fires: number[]; missed: number; policy: string; next: number | null }[]>
}

describe('session schedules', () => {
  it('at: fires once at its time, under the id of (schedule, time); a retried alarm admits nothing more', async () => {
    const { id, stub, clock } = await clocked()
    const res = await create(id, { id: 'once', when: { kind: 'at', at: T0 + 10 * MIN }, prompt: { text: 'the report' } })
    expect(res.status).toBe(201)
    expect((await create(id, { id: 'once', when: { kind: 'at', at: T0 + 10 * MIN }, prompt: { text: 'the report' } })).status).toBe(200)
    clock.now = T0 + 5 * MIN
    await runDurableObjectAlarm(stub)
    expect(await admitted(id)).toEqual([])
    clock.now = T0 + 10 * MIN + 50
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    expect(await admitted(id)).toEqual([expect.objectContaining({ messageId: `schedule:once:${T0 + 10 * MIN}`, text: 'the report' })])
    // At-least-once alarms: the handler again, the same clock, nothing new.
    await runInDurableObject(stub, (object: SessionObject) => (object as unknown as { schedules: { fire(): void } }).schedules.fire())
    await runDurableObjectAlarm(stub)
    expect(await admitted(id)).toHaveLength(1)
    expect(await list(id)).toEqual([])
    await waitIdle(id)
    expect((await events(id)).filter((e) => e.type === 'session.next.step.ended')).toHaveLength(1)
  })

  it('after and every with a count: after fires once, every fires each interval and ends at its count', async () => {
    const { id, stub, clock } = await clocked()
    expect((await create(id, { id: 'soon', when: { kind: 'after', seconds: 2 }, prompt: { text: 'soon' } })).status).toBe(201)
    expect((await create(id, { id: 'tick', when: { kind: 'every', seconds: 60 }, prompt: { parts: [{ type: 'text', text: 'tick' }], delivery: 'steer' }, end: { count: 2 } })).status).toBe(201)
    expect((await list(id)).map((s) => [s.id, s.next])).toEqual([['soon', T0 + 2000], ['tick', T0 + MIN]])
    clock.now = T0 + 2000
    await runDurableObjectAlarm(stub)
    clock.now = T0 + MIN
    await runDurableObjectAlarm(stub)
    clock.now = T0 + 2 * MIN
    await runDurableObjectAlarm(stub)
    clock.now = T0 + 3 * MIN
    await runDurableObjectAlarm(stub)
    expect((await admitted(id)).map((a) => a.messageId)).toEqual([`schedule:soon:${T0 + 2000}`, `schedule:tick:${T0 + MIN}`, `schedule:tick:${T0 + 2 * MIN}`])
    expect(await list(id)).toEqual([])
    await waitIdle(id)
  })

  it('cron in Europe/Berlin fires at 09:00 local on both sides of the spring change', async () => {
    const { id, stub, clock } = await clocked(Date.parse('2030-03-30T00:00:00Z'))
    expect((await create(id, { id: 'nine', when: { kind: 'cron', cron: '0 9 * * *', timezone: 'Europe/Berlin' }, prompt: { text: 'morning' } })).status).toBe(201)
    for (const iso of ['2030-03-30T08:00:00Z', '2030-03-31T07:00:00Z']) {
      expect(new Date((await list(id))[0]!.next).toISOString()).toBe(iso.replace('Z', '.000Z'))
      clock.now = Date.parse(iso)
      await runDurableObjectAlarm(stub)
    }
    expect((await admitted(id)).map((a) => a.messageId)).toEqual([`schedule:nine:${Date.parse('2030-03-30T08:00:00Z')}`, `schedule:nine:${Date.parse('2030-03-31T07:00:00Z')}`])
    await waitIdle(id)
  })

  it('after a pause, each missed-fire policy shows in its event: coalesce one, skip none, all each', async () => {
    const { id, stub, clock } = await clocked()
    for (const missed of ['coalesce', 'skip', 'all']) expect((await create(id, { id: missed, when: { kind: 'every', seconds: 60 }, prompt: { text: missed }, missed })).status).toBe(201)
    // Nothing ran from the first due time until 4 min 30 s after it.
    clock.now = T0 + 5 * MIN + 30_000
    await runDurableObjectAlarm(stub)
    const byId = Object.fromEntries((await fired(stub)).map((f) => [f.id, f]))
    expect(byId.coalesce).toMatchObject({ due: T0 + MIN, fires: [T0 + 5 * MIN], missed: 4, policy: 'coalesce', next: T0 + 6 * MIN })
    expect(byId.skip).toMatchObject({ fires: [], missed: 5, policy: 'skip', next: T0 + 6 * MIN })
    expect(byId.all).toMatchObject({ fires: [1, 2, 3, 4, 5].map((m) => T0 + m * MIN), missed: 0, policy: 'all' })
    const texts = (await admitted(id)).map((a) => a.text)
    expect(texts.filter((t) => t === 'coalesce')).toHaveLength(1)
    expect(texts.filter((t) => t === 'skip')).toHaveLength(0)
    expect(texts.filter((t) => t === 'all')).toHaveLength(5)
    await waitIdle(id)
  })

  it('a delete racing a fire: one or the other wins, never both half-way; a deleted schedule never fires', async () => {
    const { id, stub, clock } = await clocked()
    await create(id, { id: 'race', when: { kind: 'every', seconds: 60 }, prompt: { text: 'race' } })
    await create(id, { id: 'gone', when: { kind: 'at', at: T0 + MIN }, prompt: { text: 'gone' } })
    expect((await api(`/v1/sessions/${id}/schedules/gone`, { method: 'DELETE' })).status).toBe(200)
    clock.now = T0 + MIN
    const [deleted] = await Promise.all([api(`/v1/sessions/${id}/schedules/race`, { method: 'DELETE' }), runDurableObjectAlarm(stub)])
    expect(deleted.status).toBe(200)
    clock.now = T0 + 10 * MIN
    await runDurableObjectAlarm(stub)
    const texts = (await admitted(id)).map((a) => a.text)
    expect(texts.filter((t) => t === 'gone')).toEqual([])
    // Fired before the delete (once) or deleted first (never): no later fire either way.
    expect(texts.filter((t) => t === 'race').length).toBeLessThanOrEqual(1)
    expect((await fired(stub)).filter((f) => f.id === 'race').length).toBe(texts.filter((t) => t === 'race').length)
    expect(await list(id)).toEqual([])
    const again = await api(`/v1/sessions/${id}/schedules/race`, { method: 'DELETE' })
    expect(again.status).toBe(404)
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('SCHEDULE_NOT_FOUND')
    await waitIdle(id)
  })

  it('across an eviction the durable timer and the fold (its memo, then the events after it) carry on; a fire whose prompt was admitted already admits it no more', async () => {
    const { id, stub, clock } = await clocked()
    await create(id, { id: 'tick', when: { kind: 'every', seconds: 60 }, prompt: { text: 'tick' } })
    const reclock = () => runInDurableObject(stub, (object: SessionObject) => void ((object as unknown as Clocked).clock = () => clock.now))
    // Past the fold's memo (one every 32 events), then evicted: the new instance folds from the memo on.
    for (let m = 1; m <= 34; m++) {
      clock.now = T0 + m * MIN
      await runDurableObjectAlarm(stub)
    }
    await evictDurableObject(stub)
    const memo = await runInDurableObject(stub, (_o: SessionObject, ctx: DurableObjectState) => ctx.storage.kv.get<{ state: Record<string, { fired: number }>; cursor: number }>('schedules.fold'))
    expect(memo?.state.tick?.fired).toBe(31)
    await reclock()
    expect((await list(id)).map((s) => [s.next, s.fired])).toEqual([[T0 + 35 * MIN, 34]])
    // An attempt that admitted the 35th fire's prompt before it could record the fire (as a crash between the two would, were they not one step).
    expect((await postJson(`/v1/sessions/${id}/prompt`, { id: `schedule:tick:${T0 + 35 * MIN}`, text: 'tick' })).status).toBe(202)
    clock.now = T0 + 35 * MIN
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    const ids = (await admitted(id)).map((a) => a.messageId)
    expect(ids).toHaveLength(35)
    expect(new Set(ids).size).toBe(35)
    expect((await fired(stub)).at(-1)).toMatchObject({ fires: [T0 + 35 * MIN], next: T0 + 36 * MIN })
    await waitIdle(id)
  })

  it('refusals carry their codes and write nothing: a short interval, a bad pattern, a zone, a conflict, the limit', async () => {
    const { id, stub } = await clocked()
    const rows = await runInDurableObject(stub, (_o: SessionObject, ctx: DurableObjectState) => countRows(ctx.storage))
    const refused = async (body: unknown, status: number, code: string) => {
      const res = await create(id, body)
      expect(res.status).toBe(status)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code)
    }
    const prompt = { text: 'x' }
    await refused({ when: { kind: 'every', seconds: SCHEDULE_LIMITS.minIntervalSeconds - 1 }, prompt }, 400, 'SCHEDULE_INTERVAL_TOO_SHORT')
    await refused({ when: { kind: 'cron', cron: '*/5 * * * * *' }, prompt }, 400, 'INVALID_SCHEDULE')
    await refused({ when: { kind: 'cron', cron: '0 9 * * *', timezone: 'Mars/Olympus' }, prompt }, 400, 'INVALID_SCHEDULE')
    await refused({ when: { kind: 'at', at: T0 - 3_600_000 }, prompt }, 400, 'SCHEDULE_NEVER_FIRES')
    await refused({ when: { kind: 'every', seconds: 60 }, prompt: { text: 'x', parts: [{ type: 'text', text: 'y' }] } }, 400, 'INVALID_SCHEDULE')
    await refused({ when: { kind: 'hourly' }, prompt }, 400, 'INVALID_SCHEDULE')
    expect(rows.total()).toBe(0)
    for (let n = 0; n < SCHEDULE_LIMITS.perSession; n++) expect((await create(id, { id: `s${n}`, when: { kind: 'every', seconds: 3600 }, prompt })).status).toBe(201)
    rows.reset()
    await refused({ id: 'one-more', when: { kind: 'every', seconds: 3600 }, prompt }, 429, 'SCHEDULE_LIMIT')
    await refused({ id: 's0', when: { kind: 'every', seconds: 7200 }, prompt }, 409, 'SCHEDULE_EXISTS')
    expect(rows.total()).toBe(0)
    rows.restore()
    // Another principal sees no session at all.
    const stranger = await api(`/v1/sessions/${id}/schedules`, {}, 'mallory')
    expect(stranger.status).toBe(404)
  })
})
