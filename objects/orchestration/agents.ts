/**
 * The orchestration's outbound side: what it tells its agents, carried by the
 * bridge stage to each agent's SessionObject. Every delivery is idempotent on
 * the receiving side (prompts carry fixed message ids), so the tick can send
 * the current prompt again whenever it is unsure it arrived.
 */
import type { Env } from '../core/env.ts'
import { settled } from '../core/rpc.ts'
import { register } from '../directory/keys.ts'
import type { Json } from '../ledger/json.ts'
import { type BridgeDraft, bridge } from '../agent-link/bridge.ts'
import { promptId } from './fanout.ts'
import { declarePrompt, executePrompt, planPrompt } from './prompts.ts'
import { agentSessionName, type OrchState } from './state.ts'

export interface AgentChannelOptions {
  env: Env
  /** The orchestration's id. */
  orchestration: string
  /** Keeps a delivery alive after the call that started it returns. */
  waitUntil(work: Promise<unknown>): void
  /** Records a draft the bridge gave up on, on the orchestration's dead-letter address. */
  deadLetter(draft: BridgeDraft, error: { code: string; message: string; tries: number }): void
}

/**
 * @example
 * const agents = new AgentChannel({ env, orchestration: id, waitUntil, deadLetter })
 * agents.assign(state, 'b')       // the declare prompt; creates the agent's session
 * agents.stop(token, 'cancelled') // interrupts its running turn
 */
export class AgentChannel {
  private readonly bridge

  constructor(private readonly options: AgentChannelOptions) {
    this.bridge = bridge({ deadLetter: options.deadLetter })
  }

  /** ASSIGN: the first prompt, which creates the agent's session. */
  assign(state: OrchState, pkgId: string): void {
    const pkg = state.packages.get(pkgId)!
    this.create(state, pkg.agent!, pkg.id, promptId('declare', pkg.agent!, pkg.id), declarePrompt(state.goal, pkg.id, pkg.instructions), pkg.profile)
  }

  /** The planning turn's prompt to the planner agent. */
  plan(state: OrchState): void {
    const token = state.planner!.token
    this.create(state, token, 'plan', `plan-${token}`, planPrompt(state.goal))
  }

  /** EXECUTE: the second prompt, after clearance. */
  execute(state: OrchState, pkgId: string): void {
    const pkg = state.packages.get(pkgId)!
    const token = pkg.agent!
    this.send(token, 'orchestration.agent.prompt', { messageId: promptId('execute', token, pkg.id), text: executePrompt(pkg.id, pkg.instructions) })
  }

  /** Interrupts an agent's running turn through its session's interrupt entry point. */
  stop(token: string | null, reason: string): void {
    if (token) this.send(token, 'orchestration.agent.cancel', { reason })
  }

  private create(state: OrchState, token: string, pkg: string, messageId: string, text: string, profile: string | null = null): void {
    const { owner, share, model } = state
    const payload = { orchestration: this.options.orchestration, package: pkg, owner, share, model, messageId, text }
    this.send(token, 'orchestration.agent.assign', profile ? { ...payload, agent: profile } : payload)
  }

  private send(token: string, type: string, payload: Json): void {
    const draft: BridgeDraft = { topic: `orchestration.${this.options.orchestration}.agent.${token}`, type, author: 'object:orchestration', time: 0, payload }
    this.options.waitUntil(this.deliver(token, draft))
  }

  private async deliver(token: string, draft: BridgeDraft): Promise<void> {
    const name = agentSessionName(this.options.orchestration, token)
    const session = settled(this.options.env.SESSIONS.getByName(name))
    // Registered before the delivery that creates it, as every session is, so the owner can read it.
    if (draft.type === 'orchestration.agent.assign') await register(this.options.env, `session:${name}`)
    await this.bridge.deliver(draft, (d) => session.receive(d))
  }
}
