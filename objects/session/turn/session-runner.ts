/**
 * The session's runner wired to its parts: the model's history is the transcript fold with the
 * truncated ranges left out (a named stage between the fold and the request), the context
 * budget and prices come from the catalog, turns stream through the owner's catalog (their stored
 * provider keys), long texts are kept as artifacts in the session's ledger, and each turn's tools
 * get the authority its prompts' admissions give it (authority.ts).
 *
 * @example
 * const runner = sessionRunner({ name, state: () => state, record, air, transcript, ledger, topic, sources, catalog, owned, tools, grant })
 * void runner.wake()
 */
import type { Ledger } from '../../ledger/ledger.ts'
import type { Catalog, ModelRow } from '../../llm/catalog.ts'
import { costOf } from '../../llm/cost.ts'
import type { Approvals } from '../../permission/approvals.ts'
import type { ToolRegistry } from '../../tools/registry.ts'
import { promptedBy, type SessionGrant, toolAuthority } from './authority.ts'
import { budgetOf } from './budget.ts'
import type { ContextSources } from './context-sources.ts'
import { EVENT, type EventPayloads, isEvent } from '../events/events.ts'
import { admittedAt, type History } from './history.ts'
import type { OwnerCatalog } from '../../llm/owner-catalog.ts'
import { Runner } from './runner.ts'
import { Truncations } from '../lineage/truncation.ts'
import type { SessionProfile } from '../wiring/session-profile.ts'
import type { SessionCore } from '../wiring/session-core.ts'

/** The session object's parts the runner is wired to. */
export interface SessionRunnerParts extends Pick<SessionCore, 'name' | 'topic' | 'ledger' | 'state' | 'record' | 'air'> {
  readonly transcript: History
  readonly sources: ContextSources
  readonly catalog: Catalog
  readonly owned: OwnerCatalog
  readonly tools: ToolRegistry
  /** The permission requests of the session's tool calls (objects/permission/approvals.ts). */
  readonly approvals: Approvals
  /** The session's policy and creator, which the turn authority is decided against (authority.ts). */
  grant(): SessionGrant
  /** The agent profile the session runs: its step limit and compaction model (session-profile.ts). */
  readonly profile: Pick<SessionProfile, 'maxSteps' | 'compactionModel'>
}

/** A runner over the session's parts (see the header for what each host member is). */
export function sessionRunner(parts: SessionRunnerParts): Runner {
  const { name, transcript, catalog } = parts
  const truncations = new Truncations(parts.ledger, parts.topic)
  // The row of the model a step uses, looked up once per model rather than at each step's budget and cost.
  let last: { provider: string; model: string; row: ModelRow | undefined } | undefined
  const rowOf = (provider: string, model: string): ModelRow | undefined => {
    if (last?.provider !== provider || last.model !== model) last = { provider, model, row: catalog.get(provider, model)?.model }
    return last.row
  }
  const modelRow = () => {
    const state = parts.state()
    return rowOf(state.provider, state.model)
  }
  return new Runner({
    sessionId: name,
    state: () => parts.state(),
    record: (type, payload) => parts.record(type, payload),
    air: (delta) => parts.air(delta),
    history: () => truncations.view(transcript.messages(parts.state()), parts.state().epoch),
    historyChars: () => transcript.chars(),
    context: () => ({ system: transcript.system(), sources: transcript.sources() }),
    sources: () => {
      const { provider, model } = parts.state()
      return parts.sources.snapshot({ sessionId: name, provider, model, now: Date.now() })
    },
    budget: () => {
      const row = modelRow()
      return row ? budgetOf(row.limits) : null
    },
    stream: (request, signal) => parts.owned.stream(parts.state().owner, request, signal),
    cost: (provider, model, usage) => {
      const row = rowOf(provider, model)
      return row ? costOf(row, usage).total : null
    },
    keepArtifact: (text, kind = 'text/plain') => parts.ledger.artifacts.put(new TextEncoder().encode(text), kind).ref,
    admittedBy: (row) => promptedBy(admittedAt(parts.ledger, parts.topic, row.seq)),
    toolAuthority: (by) => toolAuthority(parts.grant(), by),
    tools: parts.tools,
    calledAfter: (seq) => calledAfter(parts.ledger, seq),
    permission: (call) => parts.approvals.gate(call),
    get maxTurns() {
      return parts.profile.maxSteps()
    },
    compactionModel: () => parts.profile.compactionModel(),
  })
}

/** The `tool.called` events after `seq`, page by page (a step's calls: bounded by the step). */
export function* calledAfter(ledger: Ledger, seq: number): Iterable<EventPayloads[typeof EVENT.toolCalled]> {
  let after: number | null = seq
  while (after !== null) {
    const page = ledger.byType(EVENT.toolCalled, { after, limit: 100 })
    for (const item of page.items) if (isEvent(item, EVENT.toolCalled)) yield item.payload
    after = page.next
  }
}
