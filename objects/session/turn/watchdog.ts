/**
 * The watchdog timer of a draining session: while the runner works, a revival timer at most
 * `WATCHDOG_MS` ahead (objects/core/timers.ts) revives the object if it is evicted mid-work (its
 * handler wakes the runner again). Arming it writes the alarm, and it is armed on every wake
 * (every admitted prompt), so a watchdog still at least half the window ahead is left as it is: a
 * burst of prompts writes it once, and the revival still comes within the window.
 *
 * `arm` issues its write before it returns (no await first), so the alarm joins the commit of
 * whatever the caller wrote in the same step (an admission).
 *
 * @example
 * const watchdog = new Watchdog(timers)
 * await watchdog.arm()   // in wake(), before its first await
 */
import type { Timers } from '../../core/timers.ts'

/** While a drain runs, an alarm this far ahead revives the object if it is evicted mid-work. */
export const WATCHDOG_MS = 30_000

export class Watchdog {
  constructor(
    private readonly timers: Pick<Timers<'watchdog'>, 'at' | 'set'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes sure the watchdog is due within `WATCHDOG_MS`; writes only when it is under half that ahead. */
  arm(): Promise<void> {
    const now = this.now()
    const due = this.timers.at('watchdog')
    if (due !== null && due - now >= WATCHDOG_MS / 2) return Promise.resolve()
    return this.timers.set('watchdog', now + WATCHDOG_MS)
  }
}
