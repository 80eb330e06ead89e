/**
 * Who caused each decision, as a pure rule. Every decision on `orchestration.{id}` carries a
 * `principal` header naming the principal whose input caused it:
 *
 * - an input through the gate (the create, a cancel, a human's clearance): that caller, with the
 *   claims and the authorize decision that let it through;
 * - an agent's input (declare, report, plan, burn, failure): whoever prompted the turn it comes
 *   from, as the agent's session recorded them: the orchestration itself, or the owner steering
 *   its agent (then the decision also carries `steer: true`);
 * - what the orchestration's own rules decided over its state (assign, clear, block, finish, a
 *   timeout, a clearance deadline, the plan's placement): the orchestration, `orchestration:{id}`.
 *
 * Agent sessions take prompts only from their orchestration and their owner, so an agent's input
 * naming anyone else, or no one, did not come from a turn this orchestration may act on: it is
 * refused (`AGENT_INPUT_REFUSED`) before anything is written.
 */
import { orchestrationPrincipal } from '../agent-link/protocol.ts'
import type { Header } from '../ledger/headers.ts'


/** Whose input an agent's input carries: one principal, and whether the owner steered the turn. */
export interface AgentCause {
  principal: string
  steer: boolean
}

/**
 * The cause of an agent's input from the principals its turn's prompts came from (`by`), or why it is refused.
 *
 * @example
 * agentCause(['orchestration:o1'], 'o1', 'user#ada') // { principal: 'orchestration:o1', steer: false }
 * agentCause(['orchestration:o1', 'user#ada'], 'o1', 'user#ada') // { principal: 'user#ada', steer: true }
 * agentCause(['user#bob'], 'o1', 'user#ada') // { refused: 'the turn was prompted by user#bob, …' }
 */
export function agentCause(by: unknown, id: string, owner: string): AgentCause | { refused: string } {
  const self = orchestrationPrincipal(id)
  const principals = Array.isArray(by) ? by : []
  if (principals.length === 0) return { refused: 'the input names no principal whose prompt caused it' }
  const stranger = principals.find((p) => p !== self && p !== owner)
  if (stranger !== undefined) return { refused: `the turn was prompted by ${String(stranger)}, who is neither this orchestration nor its owner` }
  return principals.includes(owner) ? { principal: owner, steer: true } : { principal: self, steer: false }
}

/**
 * The headers a decision caused by `cause` carries.
 *
 * @example
 * causeHeaders({ principal: 'user#ada', steer: true }) // [{ key: 'principal', value: 'user#ada' }, { key: 'steer', value: true }]
 */
export function causeHeaders(cause: AgentCause): Header[] {
  return [{ key: 'principal', value: cause.principal }, ...(cause.steer ? [{ key: 'steer', value: true }] : [])]
}
