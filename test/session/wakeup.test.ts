import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { Timers } from '../../objects/core/timers.ts'
import { Wakeup } from '../../objects/session/turn/wakeup.ts'
import { Watchdog, WATCHDOG_MS } from '../../objects/session/turn/watchdog.ts'

/** The watchdog over a session's timers, with the clock at `start`. */
const watchdogAt = (storage: DurableObjectStorage, start: number) => new Watchdog(new Timers(storage, { watchdog: { keep: 'revival', run: () => {} } }, () => start), () => start)

/** A runner that records when it was started, and whether the admitting write was durable by then. */
function recordingRunner(durable: () => boolean) {
  const starts: { durable: boolean }[] = []
  return { starts, runner: { busy: false, wake: async () => void starts.push({ durable: durable() }) } }
}

describe('waking the runner', () => {
  it('after an admission: the alarm joins the admitting step, the runner starts only once its write is durable', async () => {
    await runInDurableObject(env.SESSIONS.getByName('wakeup-after-commit'), async (_object, ctx) => {
      const start = Date.now() + 3_600_000
      let synced = false
      const storage = { sync: () => ctx.storage.sync().then(() => void (synced = true)) }
      const { starts, runner } = recordingRunner(() => synced)
      const wakeup = new Wakeup({ storage, watchdog: watchdogAt(ctx.storage, start), toolsets: { refresh: async () => {} }, profile: { refresh: async () => {} }, runner, hasWork: () => true })
      ctx.storage.kv.put('admitted', 1)
      wakeup.afterCommit()
      // Nothing has started within the admitting step; the alarm was written in it.
      expect(starts).toEqual([])
      expect(await ctx.storage.getAlarm()).toBe(start + WATCHDOG_MS)
      await ctx.storage.sync()
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(starts).toEqual([{ durable: true }])
      await ctx.storage.deleteAlarm()
    })
  })

  it('on the alarm: a busy runner keeps its watchdog, an idle one with work starts, an idle one without work stays idle', async () => {
    await runInDurableObject(env.SESSIONS.getByName('wakeup-alarm'), async (_object, ctx) => {
      const start = Date.now() + 3_600_000
      let work = true
      const { starts, runner } = recordingRunner(() => true)
      const wakeup = new Wakeup({ storage: ctx.storage, watchdog: watchdogAt(ctx.storage, start), toolsets: { refresh: async () => {} }, profile: { refresh: async () => {} }, runner, hasWork: () => work })
      runner.busy = true
      await wakeup.alarm()
      expect(starts).toEqual([])
      expect(await ctx.storage.getAlarm()).toBe(start + WATCHDOG_MS)
      runner.busy = false
      await wakeup.alarm()
      expect(starts).toHaveLength(1)
      work = false
      await wakeup.alarm()
      expect(starts).toHaveLength(1)
      await ctx.storage.deleteAlarm()
    })
  })
})
