/**
 * What the runner needs from the object it runs in: the session's fold, its
 * record path, the model's view and budget, the provider stream, and who the
 * loop acts for. Its own file so the runner and the turns it runs (provider
 * turn, compaction turn) all depend on it and never on each other.
 */
import type { Json } from '../../ledger/json.ts'
import type { LlmEvent, LlmMessage, LlmRequest, Usage } from '../../llm/types.ts'
import type { ToolRegistry } from '../../tools/registry.ts'
import type { PermissionGate } from '../../permission/gate.ts'
import type { ToolAuthority } from '../../tools/tool.ts'
import type { PromptedBy } from './authority.ts'
import type { Budget } from './budget.ts'
import type { SourceValue } from './context-sources.ts'
import type { InboxRow } from '../events/projection.ts'
import type { SessionCore } from '../wiring/session-core.ts'

/**
 * What the runner needs from the object it runs in.
 *
 * @example
 * const runner = new Runner(host)   // host: RunnerHost, e.g. session-runner.ts over the SessionObject
 */
export interface RunnerHost extends Pick<SessionCore, 'state' | 'record' | 'air'> {
  readonly sessionId: string
  history(): LlmMessage[]
  /** Serialized characters of what the last `history()` returned. */
  historyChars(): number
  /** The current epoch's system text and the sources the model knows (as of the last `history()`). */
  context(): { system: string | null; sources: Record<string, SourceValue> }
  /** The context sources' values now; never waits (see context-sources.ts). */
  sources(): Record<string, SourceValue>
  /** The context budget of the session's model; null when the catalog does not know its window. */
  budget(): Budget | null
  /** One provider turn, in batches of events (one per network chunk). */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent[]>
  cost(provider: string, model: string, usage: Usage): number | null
  keepArtifact(text: string, kind?: string): string
  /** Who an admitted prompt came from: its admission's gate headers (authority.ts). */
  admittedBy(row: InboxRow): PromptedBy
  /** What the tools of a turn may reach, given who its loop's prompts came from (authority.ts). */
  toolAuthority(by: PromptedBy | null): ToolAuthority
  readonly tools: ToolRegistry
  /** The `tool.called` events recorded after `seq` (a resumed step's calls, with their input). */
  calledAfter(seq: number): Iterable<{ toolCallId: string; name: string; input: Json }>
  /** The permission gate of one call (objects/permission/approvals.ts): a parked call waits in it. */
  permission(call: { step: string; toolCallId: string; signal: AbortSignal }): PermissionGate
  /** Provider turns one promotion may use (the agent profile's `maxSteps`); undefined: `MAX_TURNS`. */
  readonly maxTurns?: number | undefined
  /** The model compactions run on (the agent profile's `compactionModel`); null or absent: the session's. */
  compactionModel?(): { provider: string; model: string } | null
}
