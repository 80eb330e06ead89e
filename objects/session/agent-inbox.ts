/**
 * An agent session's inbox: what its orchestration sends it over the bridge. An `assign` creates
 * the session (owned as the orchestration is) and prompts it, a `prompt` prompts it, a `cancel`
 * stops its running turn through the same durable interrupt entry a user's interrupt records.
 * Prompts are keyed by message id and cancels by the delivered envelope, so a redelivered
 * envelope is answered as the first was (`duplicate`) and a crash cannot lose one.
 *
 * The session object hands this module a port (`AgentInboxHost`) with exactly what it needs.
 *
 * @example
 * const { duplicate, answer } = receiveAgentMessage(host, draft) // answer: { sequence } or { interrupted }
 */
import type { z } from 'zod'
import { NeuronError } from '../errors.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Header } from '../ledger/headers.ts'
import { sha256Hex } from '../ledger/hash.ts'
import { canonicalJson, type Json } from '../ledger/json.ts'
import type { ResolvedModel } from '../llm/catalog.ts'
import type { BridgeDraft } from '../orchestration/bridge.ts'
import { parseOrThrow } from '../validate.ts'
import type { Receipt } from './admission.ts'
import { type AgentAddress, AgentMessageSchema } from './agent.ts'
import type { InterruptReply, InterruptSchema } from './control.ts'
import { EVENT, type EventPayloads } from './events.ts'
import { PromptSchema } from './schemas.ts'

/** What receiving an orchestration's message needs of the session object. */
export interface AgentInboxHost {
  readonly name: string
  /** The orchestration and token this session's name says it serves, or null for an ordinary session. */
  readonly agent: AgentAddress | null
  exists(): boolean
  resolveModel(ref: string): ResolvedModel
  record(type: typeof EVENT.created, payload: EventPayloads[typeof EVENT.created], headers: Header[]): Stored
  control(by: string, request: z.output<typeof InterruptSchema>, headers: Header[]): InterruptReply
  admitPrompt(input: z.output<typeof PromptSchema>, headers: Header[]): { receipt: Receipt; duplicate: boolean }
}

/** Validates and acts on one bridge delivery; unknown shapes and strangers get coded refusals. */
export function receiveAgentMessage(host: AgentInboxHost, draft: BridgeDraft): { duplicate: boolean; answer: Json } {
  const agent = host.agent
  if (!agent) throw new NeuronError('NOT_AN_AGENT', `session ${host.name} is not an orchestration's agent`, { status: 404 })
  const message = parseOrThrow(AgentMessageSchema, draft, 'INVALID_AGENT_MESSAGE')
  if (message.type === 'orchestration.agent.cancel') {
    if (!host.exists()) return { duplicate: false, answer: { interrupted: false } }
    const id = `cancel.${sha256Hex(canonicalJson(draft as unknown as Json)).slice(0, 32)}`
    const reply = host.control(`orchestration:${agent.orchestration}`, { id, reason: message.payload.reason }, [])
    return { duplicate: reply.duplicate === true, answer: { interrupted: reply.interrupted } }
  }
  if (message.type === 'orchestration.agent.assign' && !host.exists()) {
    const { owner, share, model, package: pkg, orchestration } = message.payload
    if (orchestration !== agent.orchestration) {
      throw new NeuronError('NOT_YOUR_AGENT', `agent ${host.name} belongs to orchestration ${agent.orchestration}`, { status: 403 })
    }
    const resolved = host.resolveModel(model)
    host.record(EVENT.created, { provider: resolved.provider.id, model: resolved.model.id, title: `agent for ${pkg}`, system: null, owner, share }, [byOrchestration(agent)])
  }
  if (!host.exists()) throw new NeuronError('AGENT_NOT_ASSIGNED', `agent ${host.name} was never assigned`, { status: 409 })
  const { messageId, text } = message.payload
  // Named as the session's creator: its turns act for the owner the orchestration created it for (authority.ts).
  const { receipt, duplicate } = host.admitPrompt(parseOrThrow(PromptSchema, { id: messageId, text }, 'INVALID_REQUEST'), [byOrchestration(agent)])
  return { duplicate, answer: { sequence: receipt.sequence } }
}

/** The principal header of what the orchestration writes into its agent's session. */
function byOrchestration(agent: AgentAddress): Header {
  return { key: 'principal', value: `orchestration:${agent.orchestration}` }
}
