/**
 * The orchestration's durable vocabulary. Decisions live on the main address
 * `orchestration.{id}` and the state is a fold over them alone. Inputs arrive on
 * their own held addresses: cancel entries on `orchestration.{id}.control`, what
 * an agent sends (declarations, reports, burn) on `orchestration.{id}.agent.{token}`,
 * undeliverable envelopes on `orchestration.{id}.dead`. Each decision that
 * answers an input names it (`source`). An input is applied at most once because
 * the ledger is content-addressed: a redelivered input is a `duplicate`, and the
 * input and its decision are written in the same synchronous call.
 */
import type { Json } from '../ledger/json.ts'
import type { Budget, PackageSpec, WorkspaceMode } from './plan.ts'
import type { Conflict, Declaration } from './clearance.ts'

export const ORCH = {
  created: 'orchestration.created',
  plannerAssigned: 'orchestration.planner.assigned',
  planned: 'orchestration.planned',
  inlined: 'orchestration.package.inlined',
  assigned: 'orchestration.package.assigned',
  declared: 'orchestration.package.declared',
  refused: 'orchestration.package.refused',
  awaitingHuman: 'orchestration.package.awaiting-human',
  cleared: 'orchestration.package.cleared',
  executing: 'orchestration.package.executing',
  burned: 'orchestration.package.burned',
  reported: 'orchestration.package.reported',
  failed: 'orchestration.package.failed',
  blocked: 'orchestration.package.blocked',
  cancelled: 'orchestration.package.cancelled',
  budgetExceeded: 'orchestration.budget.exceeded',
  finished: 'orchestration.finished',
} as const

/** Inputs, on the control and agent addresses (named where agents can read them too). */
export { INPUT } from '../agent-link/protocol.ts'

export interface OrchPayloads {
  /** `plan: null`: a planning turn produces it. `clearanceTimeoutMs`: absent on orchestrations created before it existed (the limit applies); `workspace` too (`own`). */
  [ORCH.created]: { goal: string; owner: string; share: string[]; model: string; plan: PackageSpec[] | null; budget: Budget; maxAttempts: number; timeoutMs: number; clearanceTimeoutMs?: number; workspace?: WorkspaceMode }
  [ORCH.plannerAssigned]: { token: string }
  [ORCH.planned]: { plan: PackageSpec[]; source: string }
  /** The fan-out rule put the package in the inline agent `agent`, which runs its packages one at a time. */
  [ORCH.inlined]: { package: string; agent: string; reason: string; expectedMs: number; breakEvenMs: number }
  [ORCH.assigned]: { package: string; token: string; attempt: number }
  [ORCH.declared]: { package: string; token: string; declaration: Declaration; source: string }
  [ORCH.refused]: { package: string; conflicts: Conflict[]; edges: [string, string][] }
  [ORCH.awaitingHuman]: { package: string }
  [ORCH.cleared]: { package: string; by: 'dag' | 'human'; principal?: string }
  [ORCH.executing]: { package: string; token: string }
  [ORCH.burned]: { package: string; token: string; step: string; tokens: number; cost: number; source: string }
  [ORCH.reported]: { package: string; token: string; result: Json; artifacts: string[]; source: string }
  /** `code`: why, machine-readably, when the orchestration itself ended the attempt (`CLEARANCE_EXPIRED`). */
  [ORCH.failed]: { package: string; token: string | null; reason: string; retry: boolean; source?: string; code?: string }
  [ORCH.blocked]: { package: string; reason: string }
  [ORCH.cancelled]: { package: string; reason: string; source: string }
  [ORCH.budgetExceeded]: { scope: 'orchestration' | 'package'; package?: string; limit: string; used: number; cap: number }
  [ORCH.finished]: { status: 'completed' | 'failed' | 'cancelled'; reason: string }
}
export type OrchEvent = keyof OrchPayloads

/**
 * One decision: its `type` and the payload that type carries, so a fold that switches on `type`
 * sees the payload narrowed without a cast.
 *
 * @example
 * if (isOrchDecision(envelope) && envelope.type === ORCH.finished) envelope.payload.status
 */
export type OrchDecision = { [K in OrchEvent]: { type: K; payload: OrchPayloads[K] } }[OrchEvent]

const DECISIONS: ReadonlySet<string> = new Set<string>(Object.values(ORCH))

/**
 * Whether `event` is one of the orchestration's decisions; then `type` narrows its payload (trusted
 * as the orchestration wrote it).
 *
 * @example
 * if (isOrchDecision(envelope)) reduce(envelope)
 */
export function isOrchDecision<E extends { type: string; payload?: unknown }>(event: E): event is E & OrchDecision {
  return DECISIONS.has(event.type)
}

/** A cancel entry on the control address: the whole orchestration, or one package. */
export interface CancelEntry {
  package: string | null
  reason: string
  principal: string
}
