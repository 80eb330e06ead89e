/**
 * When schedules fire, read in workerd (croner's time zones run on the isolate's Intl): every kind
 * of schedule's first and next times, cron patterns in time zones across both daylight-saving
 * changes, each missed-fire policy after a pause, the ends, and the refusals with their codes.
 */
import { describe, expect, it } from 'vitest'
import { SCHEDULE_LIMITS } from '../../objects/core/limits.ts'
import { definitionOf, ChangeScheduleSchema, type ScheduleDefinition } from '../../objects/schedules/spec.ts'
import { checkWhen, firstFire, planFire } from '../../objects/schedules/times.ts'
import { codeOf } from '../support/codes.ts'

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR
const at = (iso: string) => Date.parse(iso)
const def = (input: Record<string, unknown>): ScheduleDefinition => definitionOf(ChangeScheduleSchema.parse({ prompt: { text: 'tick' }, ...input }))

describe('schedule times', () => {
  it('at, after and every: their first time, and what follows a fire', () => {
    const now = at('2030-01-01T00:00:00Z')
    const once = def({ when: { kind: 'at', at: '2030-01-01T00:10:00Z' } })
    expect(firstFire(once, now)).toBe(now + 10 * MIN)
    expect(planFire(once, now + 10 * MIN, 0, now + 10 * MIN)).toEqual({ fires: [now + 10 * MIN], missed: 0, next: null })
    expect(firstFire(def({ when: { kind: 'after', seconds: 2 } }), now)).toBe(now + 2000)
    const every = def({ when: { kind: 'every', seconds: 300 } })
    expect(firstFire(every, now)).toBe(now + 5 * MIN)
    expect(planFire(every, now + 5 * MIN, 0, now + 5 * MIN + 1500)).toEqual({ fires: [now + 5 * MIN], missed: 0, next: now + 10 * MIN })
    // An `at` time just past fires at once; one long past never fires.
    expect(firstFire(def({ when: { kind: 'at', at: now - 1000 } }), now)).toBe(now - 1000)
    expect(firstFire(def({ when: { kind: 'at', at: now - SCHEDULE_LIMITS.lateMs - 1 } }), now)).toBeNull()
  })

  it('cron in a time zone follows its wall clock across the spring change (a missing time fires after the jump)', () => {
    // Europe/Berlin moves from CET (+1) to CEST (+2) on 31 March 2030 at 02:00.
    const nine = def({ when: { kind: 'cron', cron: '0 9 * * *', timezone: 'Europe/Berlin' } })
    const first = firstFire(nine, at('2030-03-30T00:00:00Z'))!
    expect(new Date(first).toISOString()).toBe('2030-03-30T08:00:00.000Z')
    const { next } = planFire(nine, first, 0, first)
    expect(new Date(next!).toISOString()).toBe('2030-03-31T07:00:00.000Z')
    // 02:30 does not exist in New York on 10 March 2030: that day's fire comes right after the jump, once.
    const early = def({ when: { kind: 'cron', cron: '30 2 * * *', timezone: 'America/New_York' } })
    const day = firstFire(early, at('2030-03-09T12:00:00Z'))!
    expect(day).toBeGreaterThanOrEqual(at('2030-03-10T07:00:00Z'))
    expect(day).toBeLessThanOrEqual(at('2030-03-10T07:30:00Z'))
    const after = planFire(early, day, 0, day).next!
    expect(new Date(after).toISOString()).toBe('2030-03-11T06:30:00.000Z')
  })

  it('cron across the autumn change: a time the clock passes twice fires once', () => {
    // New York falls back from 02:00 EDT to 01:00 EST on 3 November 2030: 01:30 happens twice.
    const half = def({ when: { kind: 'cron', cron: '30 1 * * *', timezone: 'America/New_York' } })
    const first = firstFire(half, at('2030-11-02T12:00:00Z'))!
    expect(new Date(first).toISOString()).toBe('2030-11-03T05:30:00.000Z')
    const next = planFire(half, first, 0, first).next!
    expect(new Date(next).toISOString()).toBe('2030-11-04T06:30:00.000Z')
    // The same pattern in UTC is a day apart exactly.
    const utc = def({ when: { kind: 'cron', cron: '30 1 * * *' } })
    const u = firstFire(utc, at('2030-11-02T12:00:00Z'))!
    expect(planFire(utc, u, 0, u).next! - u).toBe(DAY)
  })

  it('after a pause: coalesce admits one catch-up fire, skip none, all each missed one up to the bound', () => {
    const start = at('2030-01-01T00:00:00Z')
    const five = (missed: string) => def({ when: { kind: 'every', seconds: 60 }, missed })
    // Due at start, woken 4 minutes 30 s late: five due times (start … start + 4 min).
    const now = start + 4 * MIN + 30_000
    expect(planFire(five('coalesce'), start, 0, now)).toEqual({ fires: [start + 4 * MIN], missed: 4, next: start + 5 * MIN })
    expect(planFire(five('skip'), start, 0, now)).toEqual({ fires: [], missed: 5, next: start + 5 * MIN })
    expect(planFire(five('all'), start, 0, now)).toEqual({ fires: [0, 1, 2, 3, 4].map((m) => start + m * MIN), missed: 0, next: start + 5 * MIN })
    const long = planFire(five('all'), start, 0, start + 30 * MIN)
    expect(long.fires).toHaveLength(SCHEDULE_LIMITS.catchUp)
    expect(long.fires.at(-1)).toBe(start + 30 * MIN)
    expect(long.missed).toBe(31 - SCHEDULE_LIMITS.catchUp)
    // A single fire more than `lateMs` late is a missed one too: skip drops it, coalesce admits it.
    const late = start + SCHEDULE_LIMITS.lateMs + 1
    expect(planFire(five('skip'), start, 0, late).fires).toEqual([])
    expect(planFire(five('coalesce'), start, 0, late).fires).toEqual([start + MIN])
  })

  it('a count or a date ends a schedule; one that would never fire has no first time', () => {
    const start = at('2030-01-01T00:00:00Z')
    const thrice = def({ when: { kind: 'every', seconds: 60 }, end: { count: 3 }, missed: 'all' })
    expect(planFire(thrice, start, 2, start).next).toBeNull()
    // Five due after a pause, one left of the count: only the newest is admitted, and it ends.
    expect(planFire(thrice, start, 2, start + 4 * MIN)).toEqual({ fires: [start + 4 * MIN], missed: 4, next: null })
    const until = def({ when: { kind: 'every', seconds: 60 }, end: { until: '2030-01-01T00:02:30Z' } })
    expect(planFire(until, start + 2 * MIN, 0, start + 2 * MIN).next).toBeNull()
    expect(firstFire(def({ when: { kind: 'every', seconds: 120 }, end: { until: start + MIN } }), start)).toBeNull()
  })

  it('refuses a too-frequent interval, a cron pattern that does not read or has seconds, and an unknown zone', () => {
    expect(codeOf(() => checkWhen({ kind: 'every', seconds: SCHEDULE_LIMITS.minIntervalSeconds - 1 }))).toBe('SCHEDULE_INTERVAL_TOO_SHORT')
    expect(codeOf(() => checkWhen({ kind: 'every', seconds: SCHEDULE_LIMITS.minIntervalSeconds }))).toBeNull()
    expect(codeOf(() => checkWhen({ kind: 'cron', cron: '*/5 * * * * *', timezone: 'UTC' }))).toBe('INVALID_SCHEDULE')
    expect(codeOf(() => checkWhen({ kind: 'cron', cron: '61 * * * *', timezone: 'UTC' }))).toBe('INVALID_SCHEDULE')
    expect(codeOf(() => checkWhen({ kind: 'cron', cron: '0 9 * * *', timezone: 'Mars/Olympus' }))).toBe('INVALID_SCHEDULE')
    expect(codeOf(() => checkWhen({ kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Asia/Tokyo' }))).toBeNull()
  })
})
