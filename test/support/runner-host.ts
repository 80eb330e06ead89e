/**
 * A runner host over a real ledger, for tests and benchmarks that drive the
 * runner with a scripted or replaying vendor: the same record → fold → history
 * path the SessionObject uses, without the object around it.
 */
import type { Ledger } from '../../objects/ledger/ledger.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { budgetOf } from '../../objects/session/turn/budget.ts'
import type { SourceValue } from '../../objects/session/turn/context-sources.ts'
import { History } from '../../objects/session/turn/history.ts'
import { emptySession, reduceSession, type SessionState } from '../../objects/session/events/projection.ts'
import { Runner } from '../../objects/session/turn/runner.ts'
import { calledAfter } from '../../objects/session/turn/session-runner.ts'
import type { RunnerHost } from '../../objects/session/turn/runner-host.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { toolAuthority } from '../../objects/session/turn/authority.ts'
import { Approvals, type PermissionLayers } from '../../objects/permission/approvals.ts'

/** The owner of every scripted session (who answers its permission requests). */
export const OWNER = 'test#owner'

export interface ScriptedSession {
  host: RunnerHost
  runner: Runner
  /** The session's permission requests: answer them as its owner (`OWNER`). */
  approvals: Approvals
  /** The session layer's rules, as "always" answers grew them. */
  sessionRules: NonNullable<PermissionLayers['session']>
  state(): SessionState
}

/** A created session on `topic` with one admitted prompt, ready for `runner.wake()`. */
export function scriptedSession(
  ledger: Ledger,
  topic: string,
  stream: (request: LlmRequest, signal: AbortSignal) => AsyncIterable<LlmEvent[]>,
  options: { existing?: boolean; permission?: PermissionLayers; now?: () => number; tools?: ToolRegistry; maxTurns?: number; prompt?: string; limits?: { context: number; output: number }; sources?: () => Record<string, SourceValue>; compactionModel?: { provider: string; model: string } } = {},
): ScriptedSession {
  // `existing`: the session's log is already on `topic` (a second incarnation after a restart).
  let state = options.existing ? ledger.fold(topic, reduceSession, emptySession()).state : emptySession()
  const history = new History(ledger, topic)
  const sessionRules = [...(options.permission?.session ?? [])]
  const approvals = new Approvals({
    state: () => state,
    record: (type, payload) => host.record(type, payload),
    layers: async () => ({ ...options.permission, session: sessionRules }),
    addRules: (_author, rules) => void sessionRules.push(...rules),
    ...(options.now ? { now: options.now } : {}),
  })
  const host: RunnerHost = {
    sessionId: topic,
    tools: options.tools ?? new ToolRegistry(),
    ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
    ...(options.compactionModel ? { compactionModel: () => options.compactionModel! } : {}),
    state: () => state,
    record: (type, payload) => {
      const { envelope } = ledger.append({ topic, type, author: 'test', parent: state.lastId, payload })
      state = reduceSession(state, envelope)
      history.apply(envelope)
      return envelope
    },
    air: () => {},
    history: () => history.messages(state),
    historyChars: () => history.chars(),
    context: () => ({ system: history.system(), sources: history.sources() }),
    sources: () => options.sources?.() ?? {},
    budget: () => (options.limits ? budgetOf(options.limits) : null),
    stream,
    cost: () => null,
    keepArtifact: (text, kind) => ledger.artifacts.put(new TextEncoder().encode(text), kind).ref,
    // Every prompt of a scripted session is its owner's.
    admittedBy: () => ({ principal: OWNER, claims: [] }),
    toolAuthority: (by) => toolAuthority({ name: topic, owner: OWNER, share: [], creator: OWNER }, by),
    calledAfter: (seq) => calledAfter(ledger, seq),
    permission: (call) => approvals.gate(call),
  }
  if (options.existing) return { host, runner: new Runner(host), state: () => state, approvals, sessionRules }
  host.record('session.next.created', { model: 'scripted', provider: 'test', title: null, system: null, owner: OWNER, share: [] })
  host.record('session.next.admitted', { messageId: 'm', delivery: 'queue', text: options.prompt ?? 'go', digest: 'd' })
  return { host, runner: new Runner(host), state: () => state, approvals, sessionRules }
}
