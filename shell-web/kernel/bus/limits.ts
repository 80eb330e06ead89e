/**
 * Pure bookkeeping for the bus limits: in-flight slots per source endpoint,
 * call timeouts, and what to do with one progress event.
 *
 * @example
 * const slots = new InFlight()
 * const taken = slots.take('app:notes:tile:t1:instance:a')
 * if (!taken.ok) reply(fail('TOO_MANY_IN_FLIGHT', '…', taken.retryAfterMs))
 */
import { checkJson } from '../../protocol/json-compat.ts'
import { LIMITS } from '../../protocol/limits.ts'

export class InFlight {
  #open = new Map<string, number>()

  constructor(readonly max: number = LIMITS.maxInFlightPerSource) {}

  /** Claims a slot for `source`, or says how long to wait. Never queues. */
  take(source: string): { ok: true } | { ok: false; retryAfterMs: number } {
    const open = this.#open.get(source) ?? 0
    if (open >= this.max) return { ok: false, retryAfterMs: LIMITS.retryAfterMs }
    this.#open.set(source, open + 1)
    return { ok: true }
  }

  release(source: string): void {
    const open = (this.#open.get(source) ?? 0) - 1
    if (open > 0) this.#open.set(source, open)
    else this.#open.delete(source)
  }

  count(source: string): number {
    return this.#open.get(source) ?? 0
  }
}

/** The kernel's bound on a call: the caller's wish, clamped; a default when absent. */
export function clampTimeout(requestedMs: unknown): number | null {
  if (requestedMs === undefined) return LIMITS.defaultTimeoutMs
  if (typeof requestedMs !== 'number' || !Number.isFinite(requestedMs) || requestedMs <= 0) return null
  return Math.min(Math.ceil(requestedMs), LIMITS.maxTimeoutMs)
}

export type ProgressVerdict =
  | { forward: true }
  | { forward: false; code: 'PROGRESS_LIMIT' | 'PROGRESS_REJECTED'; reason: string }

/** Decides one progress event given how many the request already carried. */
export function judgeProgress(value: unknown, alreadyForwarded: number): ProgressVerdict {
  if (alreadyForwarded >= LIMITS.maxProgressEvents) {
    return { forward: false, code: 'PROGRESS_LIMIT', reason: `more than ${LIMITS.maxProgressEvents} progress events` }
  }
  const json = checkJson(value, LIMITS.maxProgressBytes, LIMITS.maxDepth)
  if (!json.ok) return { forward: false, code: 'PROGRESS_REJECTED', reason: `${json.code} ${json.path}: ${json.reason}` }
  return { forward: true }
}
