import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { Watchdog, WATCHDOG_MS } from '../../objects/session/turn/watchdog.ts'

describe('the watchdog alarm', () => {
  it('is written on the first arm, left alone while the one it set is at least half the window ahead, written again after that and once it fired', async () => {
    await runInDurableObject(env.SESSIONS.getByName('watchdog'), async (_object, ctx) => {
      // An hour ahead, so no alarm set here is due while the test runs.
      const start = Date.now() + 3_600_000
      let now = start
      const watchdog = new Watchdog(ctx.storage, () => now)
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(start + WATCHDOG_MS)
      now = start + WATCHDOG_MS / 2
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(start + WATCHDOG_MS)
      now += 1
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(now + WATCHDOG_MS)
      // An alarm that fired is gone: the next arm writes one even though the last was far ahead.
      await ctx.storage.deleteAlarm()
      watchdog.fired()
      await watchdog.arm()
      expect(await ctx.storage.getAlarm()).toBe(now + WATCHDOG_MS)
      await ctx.storage.deleteAlarm()
    })
  })
})
