/**
 * The session as its operations see it: one port the object builds once, which forking and
 * truncating (lineage.ts), admitting prompts and recording interrupts (intake.ts) and an
 * orchestration's messages (agent-inbox.ts) each read through their own narrower host type. One
 * port, so each operation sees the same name, state and append path, and a new operation reads
 * what exists instead of another hand-built object.
 *
 * @example
 * const port: SessionPort = { name, topic, ledger, storage, sessions, chain, receipts, agent, state, busy, record, publish, resolveModel, wake, interruptRunner }
 * await forkSession(port, caller, 'origin', { at: 12 })
 * admitPrompt(port, prompt, headers)
 * await receiveAgentMessage(inboxOf(port), draft)
 */
import type { ResolvedModel } from '../llm/catalog.ts'
import type { AgentAddress } from './agent.ts'
import type { AgentInboxHost } from './agent-inbox.ts'
import { admitPrompt, type IntakeHost, requestInterrupt } from './intake.ts'
import type { LineageHost } from './lineage.ts'

/** Everything lineage and intake read, and what the agent inbox adds. */
export interface SessionPort extends LineageHost, Omit<IntakeHost, 'record'> {
  /** The orchestration and token this session's name says it serves, or null for an ordinary session. */
  readonly agent: AgentAddress | null
  /** `ref` as the owner's model calls resolve it. */
  resolveModel(owner: string, ref: string): Promise<ResolvedModel>
}

/**
 * The agent inbox's host over the port: its prompts and controls go through intake like a
 * person's (the same receipts, the same interrupt entry).
 *
 * @example
 * const answer = await receiveAgentMessage(inboxOf(port), draft)
 */
export function inboxOf(port: SessionPort): AgentInboxHost {
  return {
    name: port.name,
    agent: port.agent,
    exists: () => port.state().exists,
    resolveModel: (owner, ref) => port.resolveModel(owner, ref),
    record: (type, payload, headers) => port.record(type, payload, headers),
    control: (by, request, headers) => requestInterrupt(port, by, request, headers),
    admitPrompt: (input, headers) => admitPrompt(port, input, headers),
  }
}
