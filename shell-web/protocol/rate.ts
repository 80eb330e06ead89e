/**
 * A token bucket counting events: `take()` is false once `burst` events came
 * faster than `perSecond` refills them. Shared by the kernel (which drops
 * progress over the rate and counts strikes against flooding endpoints) and
 * the SDK (which holds progress back rather than exceed the kernel's rate).
 *
 * @example
 * const progress = new Rate(LIMITS.progressBurst, LIMITS.progressPerSecond)
 * if (!progress.take()) return drop()
 */
export class Rate {
  #tokens: number
  #at: number

  constructor(
    readonly burst: number,
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = burst
    this.#at = now()
  }

  take(): boolean {
    const now = this.now()
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) * this.perSecond) / 1000)
    this.#at = now
    if (this.#tokens < 1) return false
    this.#tokens--
    return true
  }
}
