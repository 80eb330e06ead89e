/**
 * Who may put a dialog in front of the person. Every dialog an app can cause — a grant
 * (`permissions.request`), an app-backend consent (`canister.call_dialog`,
 * `backend_calls.request`), an install offer, Agent Mode's consent — is modal: while it is open
 * the rest of the shell is not reachable. So an app gets one only:
 *
 * - with the person's gesture in one of its own frames right now (gesture.ts): a background may
 *   ask while the person is using one of its app's tiles, never on its own;
 * - and not while it is backing off: each dialog of an app the person dismissed (declined,
 *   Escape, left unanswered) makes its next ones wait, longer each time (`dialogBackoffMs`),
 *   refused at once without a dialog meanwhile; a dialog the person accepts clears it.
 *
 * @example
 * const refused = await gate.admit('planner') // null (the gesture is now spent), or { code, message, retryAfterMs? }
 * if (refused) return { error: refused.code === 'BACKING_OFF' ? fail('PERMISSION_DENIED', refused.message, refused.retryAfterMs) : refused }
 * const answer = await ask()
 * gate.answered('planner', answer === 'allow')
 */
import type { Gestures } from './gesture.ts'
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

export type GateRefusal = BusErrorShape | { code: 'BACKING_OFF'; message: string; retryAfterMs: number }

export class DialogGate {
  #dismissed = new Map<string, { count: number; until: number }>()

  constructor(
    private readonly gestures: Pick<Gestures, 'inApp' | 'spend'>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * May `app` open a dialog now? Null, or why not (`BACKING_OFF`: the caller answers with its
   * dialog's "declined" code). Admitted, the dialog uses the gesture up (Gestures.spend).
   */
  async admit(app: string): Promise<GateRefusal | null> {
    const backingOff = this.backoff(app)
    if (backingOff) return backingOff
    const gesture = await this.gestures.inApp(app)
    if (!gesture.allow) return fail(gesture.code, gesture.message)
    this.gestures.spend()
    return null
  }

  /** For a dialog whose own check already asked for the gesture in the very frame: the back-off, and admitted, the gesture is used up. */
  admitChecked(app: string): GateRefusal | null {
    const backingOff = this.backoff(app)
    if (!backingOff) this.gestures.spend()
    return backingOff
  }

  /** Only the back-off: is `app` waiting after a dismissed dialog? */
  backoff(app: string): GateRefusal | null {
    const backoff = this.#dismissed.get(app)
    const left = backoff ? backoff.until - this.now() : 0
    if (left <= 0) return null
    return { code: 'BACKING_OFF', message: `the person dismissed this app's last ${backoff!.count > 1 ? `${backoff!.count} requests` : 'request'}; it may ask again in ${Math.ceil(left / 1000)} s`, retryAfterMs: Math.ceil(left) }
  }

  /** The person answered a dialog of `app`: accepted clears its back-off, anything else lengthens it. */
  answered(app: string, accepted: boolean): void {
    if (accepted) return void this.#dismissed.delete(app)
    const count = (this.#dismissed.get(app)?.count ?? 0) + 1
    const steps = LIMITS.dialogBackoffMs
    this.#dismissed.set(app, { count, until: this.now() + steps[Math.min(count, steps.length) - 1]! })
  }

  /** The app was removed, or the shell has a new owner: its record goes. */
  forget(app: string): void {
    this.#dismissed.delete(app)
  }
}
