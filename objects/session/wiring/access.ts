/**
 * Who may act on a session. The decision is the pure `authorize` stage over the
 * session's policy (owner + shared claims, from its `created` event); this module
 * runs it where the policy lives, turns a denial into the same 404 an unknown
 * session gets, and records denials where the owner can list them — at most
 * `DENIALS_PER_HOUR` a window, so a flood cannot grow storage without limit.
 *
 * An orchestration's agent session is its orchestration's to drive: its owner and share holders
 * read it as any session, but only the owner may prompt, interrupt, configure or truncate it (an
 * explicit steer, recorded as one by the caller's headers). A share holder trying is refused
 * `AGENT_STEER_OWNER_ONLY` (403) and nothing is written: the session is one it may see.
 */
import { type Caller, type Decision, authorize, gateHeaders } from '../../access/authorize.ts'
import { NeuronError } from '../../core/errors.ts'
import { Chain } from '../../ledger/chain.ts'
import type { Stored } from '../../ledger/envelope.ts'
import type { Header } from '../../ledger/headers.ts'
import type { Ledger } from '../../ledger/ledger.ts'
import type { SessionState } from '../events/projection.ts'

export const DENIALS_PER_HOUR = 100
const HOUR = 3_600_000

/** What only an agent session's owner may do to it; everything else an allowed caller may do is a read. */
const STEER_ACTIONS: ReadonlySet<string> = new Set(['prompt', 'interrupt', 'configure', 'truncate'])

export class SessionAccess {
  private window = { start: 0, recorded: -1, suppressed: 0 }
  private readonly log: Chain

  constructor(
    private readonly ledger: Ledger,
    private readonly topic: string,
    private readonly name: () => string,
    /** Whether the session is an orchestration's agent (its name says so). */
    private readonly agent = false,
  ) {
    this.log = new Chain(ledger, topic)
  }

  /** Allows, or records the denial and throws `SESSION_NOT_FOUND` exactly as for an unknown session. */
  check(state: SessionState, caller: Caller, action: string): Decision {
    if (!state.exists) throw notFound(this.name())
    const decision = authorize({ owner: state.owner, share: state.share }, caller)
    if (decision.decision === 'allow') {
      if (this.agent && STEER_ACTIONS.has(action) && decision.rule !== 'owner') throw steerRefused(this.name(), action)
      return decision
    }
    this.recordDenial(caller, action, decision)
    throw notFound(this.name())
  }

  /**
   * The headers a prompt `caller` may send is admitted with: who asked and why it was allowed; on
   * an agent session, which only its owner may prompt, marked as the owner's steer.
   */
  promptHeaders(state: SessionState, caller: Caller): Header[] {
    const headers = gateHeaders(caller, this.check(state, caller, 'prompt'))
    return this.agent ? [...headers, { key: 'steer', value: true }] : headers
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

function steerRefused(id: string, action: string): NeuronError {
  return new NeuronError('AGENT_STEER_OWNER_ONLY', `session ${id} is an orchestration's agent: it takes prompts from its orchestration, and ${action} from its owner only`, {
    status: 403,
    details: { id, action },
  })
}

/** The one answer for a session the caller may not see or that does not exist. */
export function notFound(id: string): NeuronError {
  return new NeuronError('SESSION_NOT_FOUND', `no session ${id}`, { status: 404, details: { id } })
}
