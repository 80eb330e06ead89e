/**
 * The trusted page's time, shared fairly between apps. Handling a message (JSON
 * checks, schema validation, routing) runs on the page's main thread, so the
 * app that sent it pays from a bucket of its own: a burst of
 * {@link LIMITS.kernelWorkBurstMs} that refills at {@link LIMITS.kernelWorkShare}
 * of wall time. While another app is using the kernel too (it sent something
 * within the last second), an app that has spent its bucket has its calls
 * refused at once with VALIDATION_BUDGET and `retryAfterMs` (before any work);
 * an app alone may use all the time there is (nobody is waiting). So no app,
 * however it shapes its payloads, schemas or traffic, keeps the others waiting
 * for long. (A message once admitted runs to its end — its validation has a
 * budget of its own — and what it overran is debt paid off before the next.)
 *
 * @example
 * const metered = work.meter('planner', () => broker.onMessage(ep, data))
 * if (!metered.ok) return refuse('VALIDATION_BUDGET', metered.retryAfterMs)
 */
import { LIMITS } from '../../protocol/limits.ts'

/** An app that sent something this recently is using the kernel too. */
const ACTIVE_MS = 1_000

export type Metered<T> = { ok: true; value: T } | { ok: false; retryAfterMs: number }

export class WorkBudget {
  #apps = new Map<string, { ms: number; at: number; active: number }>()
  /** The longest single piece of metered work so far, in ms (a figure for tests and benchmarks). */
  longestMs = 0

  constructor(
    readonly burstMs: number = LIMITS.kernelWorkBurstMs,
    readonly share: number = LIMITS.kernelWorkShare,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Runs `work` for `app` unless it must wait for its share, and charges what it took. */
  meter<T>(app: string, work: () => T): Metered<T> {
    const bucket = this.#refill(app)
    const started = this.now()
    if (bucket.ms <= 0 && this.#othersActive(app, started)) return { ok: false, retryAfterMs: Math.ceil(-bucket.ms / this.share) + 1 }
    bucket.active = started
    try {
      return { ok: true, value: work() }
    } finally {
      const took = this.now() - started
      bucket.ms -= took
      if (took > this.longestMs) this.longestMs = took
    }
  }

  /** Runs `work` for `app` in any case (it finishes something already admitted), and charges what it took. */
  charge<T>(app: string, work: () => T): T {
    const bucket = this.#refill(app)
    const started = this.now()
    try {
      return work()
    } finally {
      bucket.ms -= this.now() - started
    }
  }

  /** Milliseconds `app` may still spend right now (negative: in debt). */
  left(app: string): number {
    return this.#refill(app).ms
  }

  /** `app` is more than {@link LIMITS.kernelWorkDebtMs} in debt while another app is using the kernel too. */
  overdrawn(app: string): boolean {
    return this.#refill(app).ms < -LIMITS.kernelWorkDebtMs && this.#othersActive(app, this.now())
  }

  #othersActive(app: string, now: number): boolean {
    for (const [other, bucket] of this.#apps) if (other !== app && now - bucket.active < ACTIVE_MS) return true
    return false
  }

  #refill(app: string) {
    const now = this.now()
    let bucket = this.#apps.get(app)
    if (!bucket) this.#apps.set(app, (bucket = { ms: this.burstMs, at: now, active: -Infinity }))
    bucket.ms = Math.min(this.burstMs, bucket.ms + (now - bucket.at) * this.share)
    bucket.at = now
    return bucket
  }
}
