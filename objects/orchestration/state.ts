/**
 * The orchestration projection: each package's beat, agent, edges and burn,
 * folded from the decisions on `orchestration.{id}`. Pure; the object applies
 * the same reducer to each decision it records and rebuilds it on every wake,
 * so replaying the ledger gives the same state.
 */
import { DEFAULT_AGENT } from '../agents/profile.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Json } from '../ledger/json.ts'
import { CLEARANCE_TIMEOUT_MS } from '../core/limits.ts'
import type { Declaration } from './clearance.ts'
import { isOrchDecision, ORCH } from './events.ts'
import type { Budget, PackageSpec, WorkspaceMode } from './plan.ts'

export type Beat = 'waiting' | 'assigned' | 'declared' | 'awaiting-human' | 'cleared' | 'executing' | 'reported' | 'failed' | 'blocked' | 'cancelled'

export const FINAL_BEATS: ReadonlySet<Beat> = new Set(['reported', 'failed', 'blocked', 'cancelled'])

export interface PackageState {
  id: string
  needs: string[]
  /** Edges clearance added (`needs` already includes them). */
  added: string[]
  instructions: string
  clearance: 'dag' | 'human'
  budget: Budget
  /** The expected work the plan stated, which the fan-out rule weighs; null when it stated none. */
  expect: { ms: number } | null
  /** The agent profile the package's session runs; null: `default`. */
  profile: string | null
  /** Set when the fan-out rule ran the package inline: the shared agent and why. */
  inline: { agent: string; reason: string } | null
  beat: Beat
  agent: string | null
  attempts: number
  declaration: Declaration | null
  burn: { tokens: number; cost: number }
  result: Json | null
  reason: string | null
  /** When the current beat began: assigned and executing are timed (`timeoutMs`), awaiting-human too (`clearanceTimeoutMs`). */
  since: number
}

export interface OrchState {
  exists: boolean
  goal: string
  owner: string
  share: string[]
  model: string
  budget: Budget
  maxAttempts: number
  timeoutMs: number
  clearanceTimeoutMs: number
  /** Whose workspace the packages' file tools act on (schemas.ts). */
  workspace: WorkspaceMode
  status: 'running' | 'completed' | 'failed' | 'cancelled'
  reason: string | null
  /** False until the plan is known: given at creation, or produced by the planner agent. */
  planned: boolean
  planner: { token: string; since: number } | null
  packages: Map<string, PackageState>
  burn: { tokens: number; cost: number }
  /** Every agent token ever assigned → its package (bounded: packages × attempts). */
  tokens: Map<string, string>
  createdAt: number
  lastSeq: number
  lastId: string | null
}

export function emptyOrchestration(): OrchState {
  return {
    exists: false,
    goal: '',
    owner: '',
    share: [],
    model: '',
    budget: {},
    maxAttempts: 2,
    timeoutMs: 0,
    clearanceTimeoutMs: CLEARANCE_TIMEOUT_MS,
    workspace: 'own',
    status: 'running',
    reason: null,
    planned: false,
    planner: null,
    packages: new Map(),
    burn: { tokens: 0, cost: 0 },
    tokens: new Map(),
    createdAt: 0,
    lastSeq: 0,
    lastId: null,
  }
}

function packageOf(spec: PackageSpec): PackageState {
  return {
    id: spec.id,
    needs: [...spec.needs],
    added: [],
    instructions: spec.instructions,
    clearance: spec.clearance,
    budget: spec.budget ?? {},
    expect: spec.expect ?? null,
    profile: spec.agent ?? null,
    inline: null,
    beat: 'waiting',
    agent: null,
    attempts: 0,
    declaration: null,
    burn: { tokens: 0, cost: 0 },
    result: null,
    reason: null,
    since: 0,
  }
}

/**
 * Folds one decision. The package and token maps are owned by the fold and updated in place.
 *
 * @example
 * const state = ledger.fold(`orchestration.${id}`, reduceOrchestration, emptyOrchestration()).state
 */
export function reduceOrchestration(state: OrchState, envelope: Stored): OrchState {
  const next: OrchState = { ...state, lastSeq: envelope.seq, lastId: envelope.id }
  if (!isOrchDecision(envelope)) return next
  const pkg = (id: string, change: Partial<PackageState>) => {
    const current = state.packages.get(id)
    if (current) state.packages.set(id, { ...current, ...change })
  }
  switch (envelope.type) {
    case ORCH.created: {
      const c = envelope.payload
      for (const spec of c.plan ?? []) state.packages.set(spec.id, packageOf(spec))
      return { ...next, exists: true, planned: c.plan !== null, goal: c.goal, owner: c.owner, share: c.share, model: c.model, budget: c.budget, maxAttempts: c.maxAttempts, timeoutMs: c.timeoutMs, clearanceTimeoutMs: c.clearanceTimeoutMs ?? CLEARANCE_TIMEOUT_MS, workspace: c.workspace ?? 'own', createdAt: envelope.time }
    }
    case ORCH.plannerAssigned:
      return { ...next, planner: { token: envelope.payload.token, since: envelope.time } }
    case ORCH.planned: {
      for (const spec of envelope.payload.plan) state.packages.set(spec.id, packageOf(spec))
      return { ...next, planned: true }
    }
    case ORCH.inlined: {
      const i = envelope.payload
      pkg(i.package, { inline: { agent: i.agent, reason: i.reason } })
      return next
    }
    case ORCH.assigned: {
      const a = envelope.payload
      state.tokens.set(a.token, a.package)
      pkg(a.package, { beat: 'assigned', agent: a.token, attempts: a.attempt, declaration: null, since: envelope.time })
      return next
    }
    case ORCH.declared: {
      const d = envelope.payload
      pkg(d.package, { beat: 'declared', declaration: d.declaration })
      return next
    }
    case ORCH.refused: {
      const r = envelope.payload
      const current = state.packages.get(r.package)
      if (current) {
        const before = r.edges.map(([from]) => from).filter((from) => !current.needs.includes(from))
        pkg(r.package, { needs: [...current.needs, ...before], added: [...current.added, ...before] })
      }
      return next
    }
    case ORCH.awaitingHuman:
      pkg(envelope.payload.package, { beat: 'awaiting-human', since: envelope.time })
      return next
    case ORCH.cleared:
      pkg(envelope.payload.package, { beat: 'cleared' })
      return next
    case ORCH.executing:
      pkg(envelope.payload.package, { beat: 'executing', since: envelope.time })
      return next
    case ORCH.burned: {
      const b = envelope.payload
      const current = state.packages.get(b.package)
      if (current) pkg(b.package, { burn: { tokens: current.burn.tokens + b.tokens, cost: current.burn.cost + b.cost } })
      return { ...next, burn: { tokens: state.burn.tokens + b.tokens, cost: state.burn.cost + b.cost } }
    }
    case ORCH.reported: {
      const r = envelope.payload
      pkg(r.package, { beat: 'reported', result: r.result })
      return next
    }
    case ORCH.failed: {
      const f = envelope.payload
      pkg(f.package, f.retry ? { beat: 'waiting', agent: null, declaration: null, inline: null, reason: f.reason } : { beat: 'failed', reason: f.reason })
      return next
    }
    case ORCH.blocked: {
      const b = envelope.payload
      pkg(b.package, { beat: 'blocked', reason: b.reason })
      return next
    }
    case ORCH.cancelled: {
      const c = envelope.payload
      pkg(c.package, { beat: 'cancelled', reason: c.reason })
      return next
    }
    case ORCH.finished: {
      const f = envelope.payload
      return { ...next, status: f.status, reason: f.reason }
    }
    default:
      return next
  }
}

/** What a cancel answers: the packages it cancelled, and the control entry it wrote (null: nothing left to cancel). */
export interface CancelOutcome {
  cancelled: string[]
  entry: number | null
}

/** The public view: the DAG with each package's beat, agent and burn. */
export interface OrchestrationView {
  id: string
  goal: string
  owner: string
  share: string[]
  model: string
  status: OrchState['status']
  reason: string | null
  planned: boolean
  /** The planner agent's session, when a planning turn produced (or is producing) the plan. */
  planner: string | null
  workspace: WorkspaceMode
  budget: Budget
  burn: { tokens: number; cost: number }
  packages: {
    id: string
    needs: string[]
    added: string[]
    beat: Beat
    agent: string | null
    session: string | null
    /** The agent profile the package's session runs. */
    profile: string
    /** Why the package ran inline in a shared agent (the fan-out rule), or null when it had its own. */
    inline: string | null
    attempts: number
    declaration: Declaration | null
    burn: { tokens: number; cost: number }
    result: Json | null
    reason: string | null
  }[]
  createdAt: number
  lastSequence: number
}

export function viewOfOrchestration(id: string, state: OrchState): OrchestrationView {
  return {
    id,
    goal: state.goal,
    owner: state.owner,
    share: state.share,
    model: state.model,
    status: state.status,
    reason: state.reason,
    planned: state.planned,
    planner: state.planner ? agentSessionName(id, state.planner.token) : null,
    workspace: state.workspace,
    budget: state.budget,
    burn: state.burn,
    packages: [...state.packages.values()].map((p) => ({
      id: p.id,
      needs: p.needs,
      added: p.added,
      beat: p.beat,
      agent: p.agent,
      session: p.agent ? agentSessionName(id, p.agent) : null,
      profile: p.profile ?? DEFAULT_AGENT,
      inline: p.inline?.reason ?? null,
      attempts: p.attempts,
      declaration: p.declaration,
      burn: p.burn,
      result: p.result,
      reason: p.reason,
    })),
    createdAt: state.createdAt,
    lastSequence: state.lastSeq,
  }
}

/** The name of an agent's SessionObject, which is also its address. */
export function agentSessionName(orchestration: string, token: string): string {
  return `orchestration.${orchestration}.agent.${token}`
}
