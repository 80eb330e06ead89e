import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { Timers } from '../../objects/core/timers.ts'
import { Watchdog, WATCHDOG_MS } from '../../objects/session/turn/watchdog.ts'

describe('the watchdog alarm', () => {
  it('is written on the first arm, left alone while the one it set is at least half the window ahead, written again after that and once it fired', async () => {
    await runInDurableObject(env.SESSIONS.getByName('watchdog'), async (_object, ctx) => {
      // An hour ahead, so no alarm set here is due while the test runs.
      const start = Date.now() + 3_600_000
      let now = start
      const timers = new Timers(ctx.storage, { watchdog: { keep: 'revival', run: () => {} } }, () => now)
      const watchdog = new Watchdog(timers, () => now)
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(start + WATCHDOG_MS)
      now = start + WATCHDOG_MS / 2
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(start + WATCHDOG_MS)
      now += 1
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(now + WATCHDOG_MS)
      // A watchdog that fired is gone: the next arm writes one even though the last was far ahead.
      await ctx.storage.deleteAlarm()
      now = timers.at('watchdog')!
      await timers.alarm()
      expect(timers.at('watchdog')).toBe(null)
      expect(await ctx.storage.getAlarm()).toBe(null)
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(now + WATCHDOG_MS)
      await ctx.storage.deleteAlarm()
    })
  })
})
