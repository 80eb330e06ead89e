/**
 * What recording a session event sets off besides storing, delivering and folding it: a step's
 * usage is metered on the owner's meter, a drain's end writes the conversation chain into the
 * graph, a settled tool call ends the host call it may have been, and an orchestration's agent
 * tells its orchestration about step boundaries, and a session's first prompt titles it in its
 * owner's listing (unless it was created with a title or renamed first). The session's one append path (`record` in
 * session-object.ts) runs these after each event; a fork's copied events skip them (`publish`).
 *
 * Whatever leaves the object (meter, graph, orchestration) runs after the reply (`waitUntil`),
 * never on the append path, and a failure is logged; a chain not written is written on the next
 * drain or wake.
 *
 * @example
 * const followUps = new FollowUps({ ctx, name, meters: env.METERS, owner: () => state.owner, chain, hostTools, agent })
 * followUps.after(EVENT.drainEnded, payload)   // the chain is written off the hot path
 */
import { settled } from '../../core/rpc.ts'
import { markSession } from '../../directory/keys.ts'
import { EVENT, type EventPayloads, type EventType, isEvent } from '../events/events.ts'
import type { SessionCore } from './session-core.ts'

/** What the follow-ups need of the session object. */
export type FollowUpHost = Pick<SessionCore, 'ctx' | 'env' | 'name' | 'owner' | 'state' | 'chain' | 'hostTools' | 'agent'>

export class FollowUps {
  constructor(private readonly host: FollowUpHost) {}

  /** Runs what `type` sets off, after it was stored and folded. */
  after<T extends EventType>(type: T, payload: EventPayloads[T]): void {
    const event = { type, payload }
    if (isEvent(event, EVENT.stepEnded)) this.meterTurn(event.payload)
    if (type === EVENT.drainEnded) this.writeChainLater()
    if (type === EVENT.admitted) this.titleFromFirstPrompt()
    if (isEvent(event, EVENT.toolSucceeded) || isEvent(event, EVENT.toolFailed) || isEvent(event, EVENT.toolCancelled)) {
      this.host.hostTools.settled(event.payload.toolCallId)
    }
    const told = this.host.agent?.observe(event)
    if (told) this.host.ctx.waitUntil(told.catch((error: unknown) => console.error('agent: step boundary not delivered', { session: this.host.name, error })))
  }

  /** Off the hot path: the chain writer runs after the reply; a failure is retried on the next drain or wake. */
  writeChainLater(): void {
    this.host.ctx.waitUntil(this.host.chain.sync().catch((error: unknown) => console.error('graph: conversation chain not written yet', { session: this.host.name, error })))
  }

  /** The first admission ever (nothing promoted, one waiting) gives an untitled session its listing's title. */
  private titleFromFirstPrompt(): void {
    const state = this.host.state()
    const owner = this.host.owner()
    if (!owner || this.host.agent || state.title !== null || !state.promptTitle || state.counts.prompts > 0 || state.pending.length !== 1) return
    const titled = markSession(this.host.env, owner, this.host.name, { promptTitle: state.promptTitle })
    this.host.ctx.waitUntil(titled.catch((error: unknown) => console.error('directory: title from the first prompt not recorded', { session: this.host.name, error })))
  }

  private meterTurn(step: EventPayloads[typeof EVENT.stepEnded]): void {
    const owner = this.host.owner()
    if (!step.usage || !owner) return
    const metered = settled(this.host.env.METERS.getByName(owner)).turn({ session: this.host.name, step: step.step, usage: step.usage, cost: step.cost })
    this.host.ctx.waitUntil(metered.catch((error: unknown) => console.error('meter: turn not recorded', { session: this.host.name, error })))
  }
}
