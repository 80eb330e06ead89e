/**
 * An agent session's inbox: what its orchestration sends it over the bridge. An `assign` creates
 * the session (owned as the orchestration is) and prompts it, a `prompt` prompts it, a `cancel`
 * stops its running turn through the same durable interrupt entry a user's interrupt records.
 * Prompts are keyed by message id and cancels by the delivered envelope, so a redelivered
 * envelope is answered as the first was (`duplicate`) and a crash cannot lose one. Each prompt is
 * admitted as the orchestration's (`principal: orchestration:{id}`), which is how the agent's
 * inputs later say whose prompt caused them (orchestration/cause.ts). The session's model is
 * resolved as any session's is, through its owner's stored keys (llm/owner-catalog.ts); the
 * agent profile its package names (objects/agents/) is recorded in its `created` event.
 *
 * Its prompts and controls go through intake like a person's (the same receipts, the same
 * interrupt entry); it reads its slice of the session core (`AgentInboxHost`).
 *
 * @example
 * const { duplicate, answer } = receiveAgentMessage(host, draft) // answer: { sequence } or { interrupted }
 */
import { NeuronError } from '../../core/errors.ts'
import { sha256Hex } from '../../ledger/hash.ts'
import { canonicalJson, type Json } from '../../ledger/json.ts'
import type { BridgeDraft } from '../../agent-link/bridge.ts'
import { orchestrationPrincipal } from '../../agent-link/protocol.ts'
import { parseOrThrow } from '../../core/validate.ts'
import { AgentMessageSchema } from './agent.ts'
import { EVENT } from '../events/events.ts'
import { admitPrompt, type IntakeHost, requestInterrupt } from '../intake/intake.ts'
import { PromptSchema } from '../intake/schemas.ts'
import type { SessionCore } from '../wiring/session-core.ts'

/** What receiving an orchestration's message reads of the session core: intake's slice, the agent link and the models. */
export type AgentInboxHost = IntakeHost & Pick<SessionCore, 'agent' | 'models'>

/** Validates and acts on one bridge delivery; unknown shapes and strangers get coded refusals. */
export async function receiveAgentMessage(host: AgentInboxHost, draft: BridgeDraft): Promise<{ duplicate: boolean; answer: Json }> {
  const agent = host.agent?.address
  if (!agent) throw new NeuronError('NOT_AN_AGENT', `session ${host.name} is not an orchestration's agent`, { status: 404 })
  const message = parseOrThrow(AgentMessageSchema, draft, 'INVALID_AGENT_MESSAGE')
  const by = orchestrationPrincipal(agent.orchestration)
  const headers = [{ key: 'principal', value: by }]
  if (message.type === 'orchestration.agent.cancel') {
    if (!host.state().exists) return { duplicate: false, answer: { interrupted: false } }
    const id = `cancel.${sha256Hex(canonicalJson(draft as unknown as Json)).slice(0, 32)}`
    const reply = requestInterrupt(host, by, { id, reason: message.payload.reason }, headers)
    return { duplicate: reply.duplicate === true, answer: { interrupted: reply.interrupted } }
  }
  if (message.type === 'orchestration.agent.assign' && !host.state().exists) {
    const { owner, share, model, package: pkg, orchestration, agent: profile } = message.payload
    if (orchestration !== agent.orchestration) {
      throw new NeuronError('NOT_YOUR_AGENT', `agent ${host.name} belongs to orchestration ${agent.orchestration}`, { status: 403 })
    }
    const resolved = await host.models.resolve(owner, model)
    // After the only await: a redelivery of the same assign that created the session meanwhile finds it.
    const created = { provider: resolved.provider.id, model: resolved.model.id, title: `agent for ${pkg}`, system: null, owner, share }
    if (!host.state().exists) host.record(EVENT.created, profile ? { ...created, agent: profile } : created, headers)
  }
  if (!host.state().exists) throw new NeuronError('AGENT_NOT_ASSIGNED', `agent ${host.name} was never assigned`, { status: 409 })
  const { messageId, text } = message.payload
  const { receipt, duplicate } = admitPrompt(host, parseOrThrow(PromptSchema, { id: messageId, text }, 'INVALID_REQUEST'), headers)
  return { duplicate, answer: { sequence: receipt.sequence } }
}

