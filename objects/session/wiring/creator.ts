/**
 * The session's `created` event: writing it once, and who it says created the session.
 *
 * Creating is idempotent: the same request again is a no-op, a different one `SESSION_EXISTS`.
 * The agent profile (`UNKNOWN_AGENT` when no layer defines it) and the model (the request's, else
 * the profile's, else the catalog's default) are resolved before anything is decided, so two
 * creates cannot interleave. The event names the profile, so the session runs it after a restart
 * and its forks inherit it. The creator becomes the owner, and the event carries the gate's principal and the
 * claims it held in its headers. Two readers need those: the conversation chain's graph writes as
 * the owner with the claims they held then (chain-writer.ts), and the turn authority tells the
 * owner's own prompts from those of the principal that created the session for the owner, an
 * orchestration for its agents (authority.ts). The event is the session's first, never rewritten,
 * so it is read once and kept.
 *
 * @example
 * const creator = new Creator({ ledger, topic: 'session.s1', name: 's1', state: () => state, models, record })
 * await creator.create(caller, { model: 'local/echo-1' })   // { session, created: true }
 * creator.owner()   // { id: 'user:ada', claims: ['team:core'] }, or null before `created`
 * creator.grant()   // { name: 's1', owner: 'user:ada', share: [], creator: 'user:ada' }
 */
import { authorize, type Caller, gateHeaders } from '../../access/authorize.ts'
import { parseOrThrow } from '../../core/validate.ts'
import type { Stored } from '../../ledger/envelope.ts'
import { current, type Header } from '../../ledger/headers.ts'
import type { SessionGrant } from '../turn/authority.ts'
import { EVENT } from '../events/events.ts'
import { sessionExists } from '../lineage/lineage.ts'
import { type SessionView, viewOf } from '../events/projection.ts'
import { CreateSessionSchema } from '../intake/schemas.ts'
import { DEFAULT_AGENT } from '../../agents/profile.ts'
import type { SessionProfile } from './session-profile.ts'
import type { SessionCore } from './session-core.ts'

/** What reading the creator needs of the session object. */
export interface CreatorHost extends Pick<SessionCore, 'ledger' | 'topic' | 'name' | 'state' | 'models' | 'record'> {
  /** The agent profiles the owner sees (session-profile.ts). */
  profile: Pick<SessionProfile, 'lookup'>
}

export class Creator {
  private created: Stored | null = null

  constructor(private readonly host: CreatorHost) {}

  /** Creates the session owned by `caller`; the same request again is a no-op, a different one a conflict. */
  async create(caller: Caller, input: unknown): Promise<{ session: SessionView; created: boolean }> {
    const body = parseOrThrow(CreateSessionSchema, input, 'INVALID_REQUEST')
    // The only awaits: everything after them runs as one step, so two creates cannot interleave.
    const agent = body.agent ?? DEFAULT_AGENT
    const { profile } = await this.host.profile.lookup(caller.id, agent)
    const ref = body.model ?? profile.model
    const resolved = ref ? await this.host.models.resolve(caller.id, ref) : this.host.models.default()
    const wanted = { provider: resolved.provider.id, model: resolved.model.id, title: body.title ?? null, system: body.system ?? null, agent }
    const state = this.host.state()
    if (state.exists) {
      const { provider, model, title, system, owner, share } = state
      const same =
        owner === caller.id && provider === wanted.provider && model === wanted.model && title === wanted.title && system === wanted.system && state.agent === agent && share.join('\n') === body.share.join('\n')
      if (!same) throw sessionExists(this.host.name)
      return { session: viewOf(this.host.name, state), created: false }
    }
    // The creator becomes the owner; the decision that records it is the same stage's.
    const decision = authorize({ owner: caller.id, share: body.share }, caller)
    this.host.record(EVENT.created, { ...wanted, owner: caller.id, share: body.share }, gateHeaders(caller, decision))
    return { session: viewOf(this.host.name, this.host.state()), created: true }
  }

  /** The `created` event (the session exists), read once. */
  event(): Stored {
    return (this.created ??= this.host.ledger.byTopic(this.host.topic, { limit: 1 }).items[0]!)
  }

  /** The owner as the conversation chain's graph sees it: its id and the claims it held when it created the session. */
  owner(): Caller | null {
    const state = this.host.state()
    if (!state.exists) return null
    return { id: state.owner, claims: (current(this.headers(), 'claims') as string[] | undefined) ?? [] }
  }

  /** The session's policy and the principal that created it for its owner, as the turn authority reads them (authority.ts). */
  grant(): SessionGrant {
    const state = this.host.state()
    const creator = current(this.headers(), 'principal')
    return { name: this.host.name, owner: state.owner, share: state.share, creator: typeof creator === 'string' ? creator : state.owner }
  }

  /** The headers of the `created` event (who created the session, with which claims); none before it. */
  private headers(): Header[] {
    if (!this.host.state().exists) return []
    return this.event().headers
  }
}
