/**
 * The watchdog alarm of a draining session: while the runner works, an alarm at most
 * `WATCHDOG_MS` ahead revives the object if it is evicted mid-work (the alarm handler wakes the
 * runner again). Arming it is a storage write, and it is armed on every wake (every admitted
 * prompt), so an alarm this object set that is still at least half the window ahead is left as
 * it is: a burst of prompts writes it once, and the revival still comes within the window.
 *
 * `arm` issues its write before it returns (no await first), so the alarm joins the commit of
 * whatever the caller wrote in the same step (an admission).
 *
 * @example
 * const watchdog = new Watchdog(ctx.storage)
 * await watchdog.arm()   // in wake(), before its first await
 * watchdog.fired()       // first thing in alarm(): the alarm that fired is no longer scheduled
 */

/** While a drain runs, an alarm this far ahead revives the object if it is evicted mid-work. */
export const WATCHDOG_MS = 30_000

export class Watchdog {
  /** When the alarm this object set is due; null when unknown (since this wake) or it fired. */
  private due: number | null = null

  constructor(
    private readonly storage: Pick<DurableObjectStorage, 'setAlarm'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Makes sure an alarm is due within `WATCHDOG_MS`; writes only when the known one is under half that ahead. */
  arm(): Promise<void> {
    const now = this.now()
    if (this.due !== null && this.due - now >= WATCHDOG_MS / 2) return Promise.resolve()
    this.due = now + WATCHDOG_MS
    return this.storage.setAlarm(this.due)
  }

  /** The alarm fired: none is scheduled until the next `arm`. */
  fired(): void {
    this.due = null
  }
}
