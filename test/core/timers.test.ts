/**
 * Named timers over one object's alarm (objects/core/timers.ts), on a real object's storage with a
 * clock of the test's own (an hour ahead, so the platform never fires an alarm set here): each
 * timer fires at its time, clearing one keeps the other, a durable timer set before an eviction
 * fires after it, a handler that throws keeps the rest and runs again, and a `set` that does not
 * move the earliest time writes no alarm (nor a row, unless its own durable time changed).
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { TIMER_RETRY_MS } from '../../objects/core/limits.ts'
import { type TimerSpec, Timers } from '../../objects/core/timers.ts'
import { uniqueName } from '../support/ledger.ts'
import { countRows } from '../support/rows.ts'

const T = Date.now() + 3_600_000

/** Timers over `storage` whose handlers note their name in `fired` (or throw while `failing` holds it). */
function timersOver(storage: DurableObjectStorage, clock: { now: number }, keep: Record<string, TimerSpec['keep']>, failing = new Set<string>()) {
  const fired: string[] = []
  const specs = Object.fromEntries(
    Object.entries(keep).map(([name, how]) => [
      name,
      {
        keep: how,
        run: async () => {
          if (failing.has(name)) throw new Error(`${name} failed`)
          fired.push(name)
        },
      },
    ]),
  )
  return { fired, timers: new Timers(storage, specs, () => clock.now) }
}

/** Runs `fn` in a fresh object (a LedgerObject: it has no alarm of its own), then deletes its alarm. */
function inObject(stub: DurableObjectStub, fn: (storage: DurableObjectStorage) => Promise<void>) {
  return runInDurableObject(stub, async (_object: unknown, ctx: DurableObjectState) => {
    try {
      await fn(ctx.storage)
    } finally {
      await ctx.storage.deleteAlarm()
    }
  })
}

describe('named timers over the one alarm', () => {
  it('two timers on one object each fire at their time, and the alarm follows the earliest left', () =>
    inObject(env.LEDGER.getByName(uniqueName('timers')), async (storage) => {
      const clock = { now: T }
      const { fired, timers } = timersOver(storage, clock, { expiry: 'durable', schedule: 'durable' })
      await timers.set('schedule', T + 20_000)
      await timers.set('expiry', T + 10_000)
      expect(await storage.getAlarm()).toBe(T + 10_000)
      clock.now = T + 10_000
      await timers.alarm()
      expect(fired).toEqual(['expiry'])
      expect(await storage.getAlarm()).toBe(T + 20_000)
      clock.now = T + 20_000
      await timers.alarm()
      expect(fired).toEqual(['expiry', 'schedule'])
      expect([timers.at('expiry'), timers.at('schedule')]).toEqual([null, null])
      expect(storage.kv.get('timer.expiry')).toBeUndefined()
      expect(storage.kv.get('timer.schedule')).toBeUndefined()
    }))

  it('clearing one keeps the other', () =>
    inObject(env.LEDGER.getByName(uniqueName('timers')), async (storage) => {
      const clock = { now: T }
      const { fired, timers } = timersOver(storage, clock, { expiry: 'durable', watchdog: 'revival' })
      await timers.set('expiry', T + 10_000)
      await timers.set('watchdog', T + 20_000)
      timers.clear('expiry')
      expect(storage.kv.get('timer.expiry')).toBeUndefined()
      clock.now = T + 10_000
      await timers.alarm()
      expect(fired).toEqual([])
      expect(await storage.getAlarm()).toBe(T + 20_000)
      clock.now = T + 20_000
      await timers.alarm()
      expect(fired).toEqual(['watchdog'])
    }))

  it('a durable timer set before the object is evicted fires after it; revival timers run on that alarm too', async () => {
    const stub = env.LEDGER.getByName(uniqueName('timers'))
    await runInDurableObject(stub, async (_object: unknown, ctx: DurableObjectState) => {
      const { timers } = timersOver(ctx.storage, { now: T }, { expiry: 'durable', watchdog: 'revival', later: 'durable' })
      await timers.set('expiry', T + 10_000)
      await timers.set('later', T + 60_000)
    })
    await evictDurableObject(stub)
    await inObject(stub, async (storage) => {
      // The platform kept the alarm; this instance knows the durable timers from storage alone.
      expect(await storage.getAlarm()).toBe(T + 10_000)
      const clock = { now: T + 10_000 }
      const { fired, timers } = timersOver(storage, clock, { expiry: 'durable', watchdog: 'revival', later: 'durable' })
      expect(timers.at('expiry')).toBe(T + 10_000)
      await timers.alarm()
      // The watchdog was not seen since the restart: the alarm may have been its, so it runs.
      expect(fired.sort()).toEqual(['expiry', 'watchdog'])
      expect(storage.kv.get('timer.expiry')).toBeUndefined()
      expect(await storage.getAlarm()).toBe(T + 60_000)
      // Seen now (it fired): the next alarm runs only what is due.
      clock.now = T + 60_000
      await timers.alarm()
      expect(fired.sort()).toEqual(['expiry', 'later', 'watchdog'])
    })
  })

  it('a handler that throws keeps the other timers, stays due, and runs again after the retry delay', () =>
    inObject(env.LEDGER.getByName(uniqueName('timers')), async (storage) => {
      const clock = { now: T }
      const failing = new Set(['expiry'])
      const { fired, timers } = timersOver(storage, clock, { expiry: 'durable', tick: 'revival', schedule: 'durable' }, failing)
      await timers.set('expiry', T + 10_000)
      await timers.set('tick', T + 10_000)
      await timers.set('schedule', T + 3_600_000)
      clock.now = T + 10_000
      await timers.alarm()
      expect(fired).toEqual(['tick'])
      // Still due, its row kept (a restart now fires it), the alarm at the retry.
      expect(timers.at('expiry')).toBe(clock.now + TIMER_RETRY_MS)
      expect(storage.kv.get('timer.expiry')).toBe(T + 10_000)
      expect(timers.at('schedule')).toBe(T + 3_600_000)
      expect(await storage.getAlarm()).toBe(clock.now + TIMER_RETRY_MS)
      // Failing again doubles the delay; once it succeeds its row is gone and the schedule is next.
      clock.now += TIMER_RETRY_MS
      await timers.alarm()
      expect(timers.at('expiry')).toBe(clock.now + 2 * TIMER_RETRY_MS)
      failing.clear()
      clock.now += 2 * TIMER_RETRY_MS
      await timers.alarm()
      expect(fired).toEqual(['tick', 'expiry'])
      expect(storage.kv.get('timer.expiry')).toBeUndefined()
      expect(await storage.getAlarm()).toBe(T + 3_600_000)
    }))

  it('a set that does not move the earliest time writes no alarm, and a durable one only its own row when its time changes', () =>
    inObject(env.LEDGER.getByName(uniqueName('timers')), async (storage) => {
      const clock = { now: T }
      const { timers } = timersOver(storage, clock, { expiry: 'durable', watchdog: 'revival' })
      const setAlarm = storage.setAlarm
      const alarms: number[] = []
      storage.setAlarm = (at: number | Date) => {
        alarms.push(Number(at))
        return setAlarm.call(storage, at)
      }
      const rows = countRows(storage)
      try {
        await timers.set('expiry', T + 10_000)
        expect([rows.total(), alarms]).toEqual([1, [T + 10_000]])
        await timers.set('expiry', T + 10_000)
        await timers.set('watchdog', T + 20_000)
        await timers.set('watchdog', T + 15_000)
        expect([rows.total(), alarms]).toEqual([1, [T + 10_000]])
        await timers.set('expiry', T + 12_000)
        expect([rows.total(), alarms]).toEqual([2, [T + 10_000, T + 12_000]])
        // Clearing writes the durable row's delete and leaves the alarm.
        timers.clear('expiry')
        timers.clear('watchdog')
        expect([rows.total(), alarms]).toEqual([3, [T + 10_000, T + 12_000]])
      } finally {
        rows.restore()
        storage.setAlarm = setAlarm
      }
    }))

  it('an unregistered name is refused', () =>
    inObject(env.LEDGER.getByName(uniqueName('timers')), async (storage) => {
      const { timers } = timersOver(storage, { now: T }, { expiry: 'durable' })
      expect(() => timers.set('nope', T)).toThrow(/no timer named nope/)
      expect(await storage.getAlarm()).toBe(null)
    }))
})
