/**
 * What the orchestration does next, as a pure function of its state: assign
 * packages whose dependencies reported, clear declared packages whose waits are
 * over, block packages whose dependencies can never report (saying why), and
 * finish when every package is final. The object records each decision and
 * asks again until there is nothing to do, so the orchestration never hangs on
 * a package that cannot run. A ready package is first placed by the fan-out
 * rule (fanout.ts): inline in the shared agent, which takes one at a time, or
 * in an agent of its own.
 */
import { type ClearanceDecision, clear, type Declaration } from './clearance.ts'
import { COORDINATION_TAX, inlineAgentBusy, openInlineAgent, placement } from './fanout.ts'
import type { Json } from '../ledger/json.ts'
import { ORCHESTRATION_DECISIONS_PER_TURN } from '../core/limits.ts'
import { FINAL_BEATS, type OrchState, type PackageState } from './state.ts'

export type Decision =
  | { kind: 'plan' }
  | { kind: 'inline'; package: string; agent: string | null; reason: string; expectedMs: number; breakEvenMs: number }
  | { kind: 'assign'; package: string }
  | { kind: 'block'; package: string; reason: string }
  | { kind: 'clear'; package: string; decision: ClearanceDecision; human: boolean }
  | { kind: 'finish'; status: 'completed' | 'failed'; reason: string }

const DEAD_END: ReadonlySet<string> = new Set(['failed', 'blocked', 'cancelled'])

/**
 * The next decision, or null when the orchestration must wait for an agent or a human.
 *
 * @example
 * for (let d = nextDecision(state); d; d = nextDecision(state)) state = apply(d)
 */
export function nextDecision(state: OrchState): Decision | null {
  if (!state.exists || state.status !== 'running') return null
  if (!state.planned) return state.planner === null ? { kind: 'plan' } : null
  for (const pkg of state.packages.values()) {
    if (pkg.beat !== 'waiting' && pkg.beat !== 'declared') continue
    const deadNeed = pkg.needs.map((id) => state.packages.get(id)).find((need) => need && DEAD_END.has(need.beat))
    if (deadNeed) return { kind: 'block', package: pkg.id, reason: `needs ${deadNeed.id}, which ${deadNeed.beat === 'failed' ? 'failed' : `is ${deadNeed.beat}`}${deadNeed.reason ? `: ${deadNeed.reason}` : ''}` }
    if (!pkg.needs.every((id) => state.packages.get(id)?.beat === 'reported')) continue
    if (pkg.beat === 'waiting') {
      if (pkg.inline !== null) {
        if (inlineAgentBusy(state, pkg.inline.agent)) continue
        return { kind: 'assign', package: pkg.id }
      }
      const place = placement(pkg, openInlineAgent(state))
      if (!place.inline) return { kind: 'assign', package: pkg.id }
      return { kind: 'inline', package: pkg.id, agent: place.agent, reason: place.reason, expectedMs: pkg.expect!.ms, breakEvenMs: COORDINATION_TAX.wallMs }
    }
    return { kind: 'clear', package: pkg.id, decision: clearanceOf(state, pkg), human: pkg.clearance === 'human' }
  }
  const packages = [...state.packages.values()]
  if (packages.length > 0 && packages.every((p) => FINAL_BEATS.has(p.beat))) {
    const bad = packages.filter((p) => p.beat !== 'reported')
    return bad.length === 0
      ? { kind: 'finish', status: 'completed', reason: `all ${packages.length} packages reported` }
      : { kind: 'finish', status: 'failed', reason: `${bad.length} of ${packages.length} packages did not report: ${bad.map((p) => `${p.id} (${p.beat})`).join(', ')}` }
  }
  return null
}

/** A declared package against every other package that declared and has not finished. */
export function clearanceOf(state: OrchState, pkg: PackageState): ClearanceDecision {
  const needs = new Map([...state.packages.values()].map((p) => [p.id, p.needs]))
  const others = new Map<string, Declaration>()
  for (const other of state.packages.values()) {
    if (other.id !== pkg.id && other.declaration && !FINAL_BEATS.has(other.beat)) others.set(other.id, other.declaration)
  }
  return clear(needs, pkg.id, pkg.declaration ?? { reads: [], writes: [] }, others)
}

/** The ids of the packages not yet final: all of them, or the one named. */
export function unfinishedPackages(state: OrchState, pkg: string | null): string[] {
  return [...state.packages.values()].filter((p) => (pkg === null || p.id === pkg) && !FINAL_BEATS.has(p.beat)).map((p) => p.id)
}

/** Packages an agent is working on (assigned through executing). */
export function activePackages(state: OrchState): PackageState[] {
  return [...state.packages.values()].filter((p) => p.agent !== null && !FINAL_BEATS.has(p.beat) && p.beat !== 'waiting')
}

/**
 * What an agent is told about its package: the beat, and why it waits if it does.
 *
 * @example
 * answerOf(state, 'b') // { package: 'b', beat: 'declared', cleared: false, waitingFor: ['a'], added: ['a'], reason: null }
 */
export function answerOf(state: OrchState, pkgId: string | undefined): Json {
  const pkg = pkgId ? state.packages.get(pkgId) : undefined
  if (!pkg) return { accepted: false, reason: 'unknown package' }
  const waitingFor = pkg.needs.filter((id) => state.packages.get(id)?.beat !== 'reported')
  return { package: pkg.id, beat: pkg.beat, cleared: pkg.beat === 'executing', waitingFor, added: pkg.added, reason: pkg.reason }
}

/** What the tick does to an active package: fail it (its work timed out, or its clearance expired), or send its prompt again. */
export type TickAction =
  | { kind: 'timeout'; package: string; reason: string }
  | { kind: 'expire'; package: string; reason: string }
  | { kind: 'redeliver'; package: string; beat: 'assigned' | 'executing' }

/**
 * The tick's work at `now`. Only an agent's own work is timed by `timeoutMs` (waiting for an added
 * edge is not); waiting for a human has its own deadline, `clearanceTimeoutMs`. Re-deliveries are
 * a safety net (the bridge retries on its own), so a wide plan's tick stays bounded: at most
 * `perTick` of them, a different window of the active packages on each `tick`.
 *
 * @example
 * tickActions(state, Date.now(), 0) // [{ kind: 'expire', package: 'h', reason: 'no human clearance within 1000 ms' }]
 */
export function tickActions(state: OrchState, now: number, tick: number, perTick = ORCHESTRATION_DECISIONS_PER_TURN): TickAction[] {
  const ends: TickAction[] = []
  const again: TickAction[] = []
  for (const pkg of activePackages(state)) {
    if (pkg.beat === 'assigned' || pkg.beat === 'executing') {
      if (now - pkg.since > state.timeoutMs) ends.push({ kind: 'timeout', package: pkg.id, reason: `timed out after ${state.timeoutMs} ms in ${pkg.beat}` })
      else again.push({ kind: 'redeliver', package: pkg.id, beat: pkg.beat })
    } else if (pkg.beat === 'awaiting-human' && now - pkg.since > state.clearanceTimeoutMs) {
      ends.push({ kind: 'expire', package: pkg.id, reason: `no human clearance within ${state.clearanceTimeoutMs} ms` })
    }
  }
  if (again.length <= perTick) return [...ends, ...again]
  const from = (tick * perTick) % again.length
  return [...ends, ...again.slice(from, from + perTick), ...again.slice(0, Math.max(0, from + perTick - again.length))]
}
