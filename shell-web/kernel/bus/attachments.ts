/**
 * Attachments: one binary buffer that may ride beside a call's JSON envelope, in each direction,
 * transferred (never copied) on the private ports. Pure decisions: what counts as an attachment,
 * and how many bytes may be in flight per endpoint and overall, shared fairly between apps. A
 * reservation is taken when a call with an attachment begins and released when the call ends —
 * whatever the outcome (result, error, timeout, cancel, an endpoint going away, or another app's
 * need while this one holds more than its share) — because `Calls.finish` runs exactly once per
 * call. Over a bound the call is refused with a code and a true `retryAfterMs`, never queued.
 *
 * @example
 * const checked = checkAttachment(message.attachment)   // { bytes } or an error shape
 * const hold = { owner: caller, app: caller.app, bytes: checked.bytes, until, revoke: () => endCall() }
 * const refused = budget.reserve(hold)                  // null, or ATTACHMENT_BUDGET with retryAfterMs
 * budget.release(hold)                                   // when the call ends
 */
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** The descriptor annotation a tool sets to accept (and return) an attachment. */
export const ATTACHMENTS_ANNOTATION = 'neutron:attachments'

/**
 * Is `value` an acceptable attachment? An ArrayBuffer (not shared, not resizable) of at most
 * 16 MiB. The check reads only `byteLength`: nothing in the buffer is looked at.
 *
 * @example
 * checkAttachment(new ArrayBuffer(16 * 1024 * 1024 + 1)) // { code: 'ATTACHMENT_TOO_LARGE', … }
 */
export function checkAttachment(value: unknown): { bytes: number } | BusErrorShape {
  if (!(value instanceof ArrayBuffer) || (value as ArrayBuffer & { resizable?: boolean }).resizable) {
    return fail('BAD_REQUEST', 'an attachment is one ArrayBuffer (not shared, not resizable, not a view)')
  }
  if (value.byteLength > LIMITS.maxAttachmentBytes) {
    return fail('ATTACHMENT_TOO_LARGE', `an attachment is at most ${LIMITS.maxAttachmentBytes} bytes; this one has ${value.byteLength}`)
  }
  return { bytes: value.byteLength }
}

/** One attachment held in the budget: whose, how many bytes, until when at the latest, and how to end it early. */
export interface Hold {
  /** The endpoint session holding it (its calls' and its answers' attachments). */
  owner: object
  app: string
  bytes: number
  /** `performance.now()` time by which it is released at the latest (its call's end, bounded by `maxAttachmentHoldMs`). */
  until: number
  /** Ends what holds it (the call), releasing it: for an app over its share while another waits. */
  revoke?(): void
}

/**
 * Bytes of attachments in flight, per endpoint session and overall, shared fairly between apps:
 * when the shell's budget is full, an app within its share (the budget over the apps holding or
 * asking) is served by ending the oldest holds of apps over theirs, so no app can keep the budget
 * while another waits. A refusal's `retryAfterMs` is when enough held bytes are released at the
 * latest (every hold has an end).
 */
export class AttachmentBudget {
  #holds = new Set<Hold>()
  #byOwner = new Map<object, number>()
  #total = 0

  constructor(
    readonly perEndpoint: number = LIMITS.maxAttachmentBytesPerEndpoint,
    readonly global: number = LIMITS.maxAttachmentBytesGlobal,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Reserves `hold`, or says why not and when to retry. Never queues. */
  reserve(hold: Hold): BusErrorShape | null {
    const mine = this.#byOwner.get(hold.owner) ?? 0
    if (mine + hold.bytes > this.perEndpoint) {
      const retryAfterMs = this.#freedAfter([...this.#holds].filter((h) => h.owner === hold.owner), mine + hold.bytes - this.perEndpoint)
      return fail('ATTACHMENT_BUDGET', `at most ${this.perEndpoint} attachment bytes in flight per endpoint (${mine} held)`, retryAfterMs)
    }
    if (this.#total + hold.bytes > this.global && !this.#makeRoom(hold)) {
      const retryAfterMs = this.#freedAfter([...this.#holds], this.#total + hold.bytes - this.global)
      return fail('ATTACHMENT_BUDGET', `at most ${this.global} attachment bytes in flight in the shell, shared between the apps holding them`, retryAfterMs)
    }
    this.#holds.add(hold)
    this.#byOwner.set(hold.owner, mine + hold.bytes)
    this.#total += hold.bytes
    return null
  }

  release(hold: Hold): void {
    if (!this.#holds.delete(hold)) return
    const left = (this.#byOwner.get(hold.owner) ?? 0) - hold.bytes
    if (left > 0) this.#byOwner.set(hold.owner, left)
    else this.#byOwner.delete(hold.owner)
    this.#total = Math.max(0, this.#total - hold.bytes)
  }

  /** Bytes held by `owner`, or overall. */
  held(owner?: object): number {
    return owner === undefined ? this.#total : (this.#byOwner.get(owner) ?? 0)
  }

  /**
   * The budget is full: if `hold`'s app stays within its share, end the oldest holds of apps over
   * theirs until it fits. True when it fits now.
   */
  #makeRoom(hold: Hold): boolean {
    const byApp = new Map<string, number>([[hold.app, 0]])
    for (const h of this.#holds) byApp.set(h.app, (byApp.get(h.app) ?? 0) + h.bytes)
    const share = this.global / byApp.size
    if (byApp.get(hold.app)! + hold.bytes > share) return false
    const need = this.#total + hold.bytes - this.global
    const ending: Hold[] = []
    let freed = 0
    for (const h of this.#holds) {
      if (freed >= need) break
      if (h.app === hold.app || !h.revoke || byApp.get(h.app)! <= share) continue
      ending.push(h)
      freed += h.bytes
      byApp.set(h.app, byApp.get(h.app)! - h.bytes)
    }
    if (freed < need) return false
    for (const h of ending) h.revoke!()
    for (const h of ending) this.release(h) // ended calls release their own; this is in case one had already ended
    return this.#total + hold.bytes <= this.global
  }

  /** Milliseconds until at least `need` bytes of `holds` are released at the latest. */
  #freedAfter(holds: Hold[], need: number): number {
    const now = this.now()
    let freed = 0
    for (const h of holds.sort((a, b) => a.until - b.until)) {
      freed += h.bytes
      if (freed >= need) return Math.max(1, Math.ceil(h.until - now))
    }
    return LIMITS.retryAfterMs
  }
}
