/**
 * Attachments: one binary buffer that may ride beside a call's JSON envelope, in each direction,
 * transferred (never copied) on the private ports. Pure decisions: what counts as an attachment,
 * and how many bytes may be in flight per endpoint and overall. A reservation is taken when a
 * call with an attachment begins and released when the call ends — whatever the outcome
 * (result, error, timeout, cancel, an endpoint going away) — because `Calls.finish` runs exactly
 * once per call. Over a bound the call is refused with a code, never queued.
 *
 * @example
 * const checked = checkAttachment(message.attachment) // { bytes } or an error shape
 * const held = budget.reserve(caller, checked.bytes)   // null, or ATTACHMENT_BUDGET with retryAfterMs
 * budget.release(caller, checked.bytes)                // when the call ends
 */
import { type BusErrorShape, fail } from '../protocol/codes.ts'
import { LIMITS } from '../protocol/limits.ts'

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

/** Bytes of attachments in flight, per endpoint session and overall. */
export class AttachmentBudget {
  #held = new Map<unknown, number>()
  #total = 0

  constructor(
    readonly perEndpoint: number = LIMITS.maxAttachmentBytesPerEndpoint,
    readonly global: number = LIMITS.maxAttachmentBytesGlobal,
  ) {}

  /** Reserves `bytes` for `owner` (an endpoint session), or says why not. Never queues. */
  reserve(owner: unknown, bytes: number): BusErrorShape | null {
    const mine = this.#held.get(owner) ?? 0
    if (mine + bytes > this.perEndpoint) {
      return fail('ATTACHMENT_BUDGET', `at most ${this.perEndpoint} attachment bytes in flight per endpoint (${mine} held)`, LIMITS.retryAfterMs)
    }
    if (this.#total + bytes > this.global) {
      return fail('ATTACHMENT_BUDGET', `at most ${this.global} attachment bytes in flight in the shell`, LIMITS.retryAfterMs)
    }
    this.#held.set(owner, mine + bytes)
    this.#total += bytes
    return null
  }

  release(owner: unknown, bytes: number): void {
    const left = (this.#held.get(owner) ?? 0) - bytes
    if (left > 0) this.#held.set(owner, left)
    else this.#held.delete(owner)
    this.#total = Math.max(0, this.#total - bytes)
  }

  /** Bytes held by `owner`, or overall. */
  held(owner?: unknown): number {
    return owner === undefined ? this.#total : (this.#held.get(owner) ?? 0)
  }
}
