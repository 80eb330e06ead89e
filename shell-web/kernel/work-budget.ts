/**
 * The trusted page's time, shared fairly between apps. Handling a message (JSON
 * checks, schema validation, routing) runs on the page's main thread, so the
 * app that sent it pays from a bucket of its own: a burst of
 * {@link LIMITS.kernelWorkBurstMs} that refills at {@link LIMITS.kernelWorkShare}
 * of wall time. An app that has spent its bucket has its calls refused at once
 * with VALIDATION_BUDGET and `retryAfterMs` (before any work), and a validation
 * never runs past what is left of the bucket — so no app, however it shapes its
 * payloads, schemas or traffic, keeps the kernel busy for long at a time.
 *
 * @example
 * const metered = work.meter('planner', () => broker.onMessage(ep, data))
 * if (!metered.ok) return refuse('VALIDATION_BUDGET', metered.retryAfterMs)
 */
import { LIMITS } from '../protocol/limits.ts'

export type Metered<T> = { ok: true; value: T } | { ok: false; retryAfterMs: number }

export class WorkBudget {
  #apps = new Map<string, { ms: number; at: number }>()
  /** The longest single piece of metered work so far, in ms (a figure for tests and benchmarks). */
  longestMs = 0

  constructor(
    readonly burstMs: number = LIMITS.kernelWorkBurstMs,
    readonly share: number = LIMITS.kernelWorkShare,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Runs `work` for `app` if its bucket has time left, telling it how many
   * milliseconds it may take, and charges what it took.
   */
  meter<T>(app: string, work: (allowanceMs: number) => T): Metered<T> {
    const bucket = this.#refill(app)
    if (bucket.ms <= 0) return { ok: false, retryAfterMs: Math.ceil(-bucket.ms / this.share) + 1 }
    const started = this.now()
    try {
      return { ok: true, value: work(bucket.ms) }
    } finally {
      const took = this.now() - started
      bucket.ms -= took
      if (took > this.longestMs) this.longestMs = took
    }
  }

  /** Milliseconds `app` may still spend right now (negative: in debt). */
  left(app: string): number {
    return this.#refill(app).ms
  }

  #refill(app: string) {
    const now = this.now()
    let bucket = this.#apps.get(app)
    if (!bucket) this.#apps.set(app, (bucket = { ms: this.burstMs, at: now }))
    bucket.ms = Math.min(this.burstMs, bucket.ms + (now - bucket.at) * this.share)
    bucket.at = now
    return bucket
  }
}
