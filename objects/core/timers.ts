/**
 * Named timers over a Durable Object's one alarm. An object registers its timers once, by name,
 * with what each runs and how it is kept; `set(name, at)` and `clear(name)` move them, and the
 * object's `alarm()` hands over to `Timers.alarm`, which runs every due timer by name and arms
 * the alarm again at the earliest one left.
 *
 * Two ways to keep a timer:
 * - `durable`: its due time is a storage row (`timer.{name}` in the object's KV), so a timer set
 *   before an eviction or a crash still fires after it. For a deadline nothing else remembers
 *   (a permission request's expiry, a schedule).
 * - `revival`: it lives in the alarm only, for a timer the object sets again from its own state on
 *   every wake (the session's watchdog and wake-up, the orchestration's tick). After a restart
 *   this instance does not know whether the alarm was its, so an alarm runs every revival timer
 *   this instance has not seen set or cleared: their handlers read the state and do what is due.
 *
 * Rows: the alarm is written only when the earliest due time moves, and a durable timer writes its
 * own row only when its time changes, so a burst of `set`s at one time writes once. Clearing a
 * timer leaves the alarm where it is: if the alarm was the cleared timer's it fires, finds nothing
 * due and arms the next one, which costs what moving it now would, and nothing when another `set`
 * comes first.
 *
 * Failure: due handlers run side by side (a long one, such as a session's drain, does not hold a
 * deadline back), each settled on its own. A handler that throws is logged and stays due: it runs
 * again after `TIMER_RETRY_MS`, doubling per failure in a row up to `TIMER_RETRY_MAX_MS`, while the
 * others fire, clear or keep their times as usual. A durable timer's row is deleted only after its
 * handler succeeded, so a crash mid-handler fires it again (alarms are at-least-once: handlers must
 * be idempotent).
 *
 * `set` issues its writes before it returns (no await first), so they join the commit of whatever
 * the caller wrote in the same step.
 *
 * @example
 * this.timers = new Timers(ctx.storage, {
 *   watchdog: { keep: 'revival', run: () => this.wakeup.alarm() },
 *   expiry: { keep: 'durable', run: () => this.expireRequests() },
 * })
 * await this.timers.set('expiry', Date.now() + 60_000)
 * override async alarm() { await this.timers.alarm() }
 */
import { TIMER_RETRY_MAX_MS, TIMER_RETRY_MS } from './limits.ts'

/** One named timer: how it is kept, and what runs when it is due. */
export interface TimerSpec {
  /** `durable`: a storage row, fires after a restart; `revival`: in the alarm only (see the header). */
  readonly keep: 'durable' | 'revival'
  /** Runs when the timer is due; may `set` timers again (its own included). */
  run(): Promise<void> | void
}

/** What timers use of an object's storage. */
export type TimerStorage = Pick<DurableObjectStorage, 'setAlarm' | 'kv'>

const keyOf = (name: string) => `timer.${name}`

export class Timers<Name extends string = string> {
  /** Each timer's due time: `null` when not set; absent for a revival timer not seen since this wake. */
  private readonly due = new Map<Name, number | null>()
  /** The alarm's time as this instance set it: `null` when none is known to be set, `undefined` before the first. */
  private armed: number | null | undefined = undefined
  /** Failures in a row per timer, for the retry's backoff. */
  private readonly failures = new Map<Name, number>()

  constructor(
    private readonly storage: TimerStorage,
    private readonly specs: Readonly<Record<Name, TimerSpec>>,
    private readonly now: () => number = Date.now,
  ) {
    for (const name of this.names()) {
      if (specs[name].keep === 'durable') this.due.set(name, storage.kv.get<number>(keyOf(name)) ?? null)
    }
  }

  /** When `name` is due, as this instance knows it; `null` when not set or not known. */
  at(name: Name): number | null {
    this.spec(name)
    return this.due.get(name) ?? null
  }

  /** Makes `name` due at `at` (ms since the epoch), replacing its previous time. */
  set(name: Name, at: number): Promise<void> {
    const spec = this.spec(name)
    if (spec.keep === 'durable' && this.due.get(name) !== at) this.storage.kv.put(keyOf(name), at)
    this.due.set(name, at)
    return this.arm()
  }

  /** `name` is no longer due; the alarm stays where it is (see the header). */
  clear(name: Name): void {
    const spec = this.spec(name)
    if (spec.keep === 'durable' && this.due.get(name) != null) this.storage.kv.delete(keyOf(name))
    this.due.set(name, null)
  }

  /** The object's alarm: runs every due timer, then arms the alarm at the earliest one left. */
  async alarm(): Promise<void> {
    // The alarm that fired is no longer scheduled.
    this.armed = null
    const now = this.now()
    const due = this.names().filter((name) => {
      const at = this.due.get(name)
      return at === undefined ? this.specs[name].keep === 'revival' : at !== null && at <= now
    })
    const runs = due.map((name) => {
      // Cleared before it runs, so a handler that sets its own timer again keeps the new time.
      this.due.set(name, null)
      return Promise.resolve()
        .then(() => this.specs[name].run())
        .then(
          () => this.succeeded(name),
          (error: unknown) => this.failed(name, error),
        )
    })
    await Promise.all(runs)
    await this.arm()
  }

  private succeeded(name: Name): void {
    this.failures.delete(name)
    if (this.specs[name].keep === 'durable' && this.due.get(name) === null) this.storage.kv.delete(keyOf(name))
  }

  private failed(name: Name, error: unknown): void {
    const failures = (this.failures.get(name) ?? 0) + 1
    this.failures.set(name, failures)
    console.error('timers: a handler failed; it runs again', { timer: name, failures, error })
    // Set again by its handler before it threw: that time stands. Otherwise it stays due, and a
    // durable timer's row still holds its time, so a restart fires it too.
    if (this.due.get(name) !== null) return
    this.due.set(name, this.now() + Math.min(TIMER_RETRY_MS * 2 ** (failures - 1), TIMER_RETRY_MAX_MS))
  }

  /** Writes the alarm when the earliest due time differs from the one set. */
  private arm(): Promise<void> {
    let earliest: number | null = null
    for (const at of this.due.values()) if (at != null && (earliest === null || at < earliest)) earliest = at
    if (earliest === null || earliest === this.armed) return Promise.resolve()
    this.armed = earliest
    return this.storage.setAlarm(earliest)
  }

  private names(): Name[] {
    return Object.keys(this.specs) as Name[]
  }

  private spec(name: Name): TimerSpec {
    const spec = this.specs[name]
    if (!spec) throw new Error(`timers: no timer named ${name} is registered`)
    return spec
  }
}
