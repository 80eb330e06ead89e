/**
 * Who may act on a session. The decision is the pure `authorize` stage over the
 * session's policy (owner + shared claims, from its `created` event); this module
 * runs it where the policy lives, turns a denial into the same 404 an unknown
 * session gets, and records denials where the owner can list them — at most
 * `DENIALS_PER_HOUR` a window, so a flood cannot grow storage without limit.
 */
import { type Caller, type Decision, authorize } from '../access/authorize.ts'
import { NeuronError } from '../errors.ts'
import { Chain } from '../ledger/chain.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Ledger } from '../ledger/ledger.ts'
import type { SessionState } from './projection.ts'

export const DENIALS_PER_HOUR = 100
const HOUR = 3_600_000

export class SessionAccess {
  private window = { start: 0, recorded: -1, suppressed: 0 }
  private readonly log: Chain

  constructor(
    private readonly ledger: Ledger,
    private readonly topic: string,
    private readonly name: () => string,
  ) {
    this.log = new Chain(ledger, topic)
  }

  /** Allows, or records the denial and throws `SESSION_NOT_FOUND` exactly as for an unknown session. */
  check(state: SessionState, caller: Caller, action: string): Decision {
    if (!state.exists) throw notFound(this.name())
    const decision = authorize({ owner: state.owner, share: state.share }, caller)
    if (decision.decision === 'allow') return decision
    this.recordDenial(caller, action, decision)
    throw notFound(this.name())
  }

  /** The denials the owner may list, newest window's overflow counted, not stored. */
  denials(after = 0, limit = 100): { items: Stored[]; next: number | null; suppressedThisHour: number } {
    const page = this.ledger.byTopic(this.topic, { after, limit })
    return { ...page, suppressedThisHour: this.currentWindow().suppressed }
  }

  private recordDenial(caller: Caller, action: string, decision: Decision): void {
    const window = this.currentWindow()
    if (window.recorded >= DENIALS_PER_HOUR) {
      window.suppressed++
      return
    }
    this.log.append('session.denied', 'stage:authorize', { caller: caller.id, claims: caller.claims, action, decision: { ...decision } })
    window.recorded++
  }

  private currentWindow() {
    const start = Math.floor(Date.now() / HOUR) * HOUR
    if (this.window.start !== start || this.window.recorded < 0) {
      // After a wake, count what this window already holds (at most DENIALS_PER_HOUR rows).
      const recorded = this.ledger.countSince(this.topic, start)
      this.window = { start, recorded, suppressed: this.window.start === start ? this.window.suppressed : 0 }
    }
    return this.window
  }
}

/** The one answer for a session the caller may not see or that does not exist. */
export function notFound(id: string): NeuronError {
  return new NeuronError('SESSION_NOT_FOUND', `no session ${id}`, { status: 404, details: { id } })
}
