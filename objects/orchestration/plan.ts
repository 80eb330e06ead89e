/**
 * The plan of an orchestration: work packages joined by `needs` edges, which
 * must form a DAG. Pure: the schema and the checks a plan passes before anything
 * is recorded. A plan with a duplicate package id, a dependency on a package that
 * is not in the plan, or a cycle is refused with a 400 that names the offender.
 */
import { AgentName } from '../agents/profile.ts'
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { Identifier } from '../core/validate.ts'

/** Token and cost caps; crossing one stops new assignments and cancels running work. */
export const BudgetSchema = z.strictObject({
  tokens: z.number().int().positive().optional(),
  cost: z.number().positive().optional(),
})
export type Budget = z.infer<typeof BudgetSchema>

/** One work package of a plan. */
export const PackageSchema = z.strictObject({
  id: Identifier.max(64),
  /** Packages that must report before this one is assigned. */
  needs: z.array(Identifier.max(64)).max(64).default([]),
  instructions: z.string().min(1).max(16 * 1024),
  /** `human`: after the DAG clears it, a holder of `role:clearance` must grant it too. */
  clearance: z.enum(['dag', 'human']).default('dag'),
  budget: BudgetSchema.optional(),
  /**
   * The package's expected work, as the wall time of its agent's turns. Below the measured
   * coordination tax of an agent it runs inline in one shared agent (see fanout.ts); without it
   * the package gets an agent of its own.
   */
  expect: z.strictObject({ ms: z.number().nonnegative().max(86_400_000) }).optional(),
  /** The agent profile the package's session runs (`GET /v1/agents`); absent: `default`. Such a package gets an agent of its own. */
  agent: AgentName.optional(),
})
export type PackageSpec = z.infer<typeof PackageSchema>

export const PlanSchema = z.array(PackageSchema).min(1).max(200)

/** Whose workspace an orchestration's packages work in: each agent's own, or the orchestration's one. */
export const WorkspaceMode = z.enum(['own', 'shared'])
export type WorkspaceMode = z.infer<typeof WorkspaceMode>

/** What is wrong with a plan, machine-readably. */
export type PlanProblem =
  | { kind: 'duplicate-id'; package: string }
  | { kind: 'unknown-dependency'; package: string; needs: string }
  | { kind: 'cycle'; cycle: string[] }

/**
 * The first problem of a plan, or null when its packages form a DAG.
 *
 * @example
 * planProblem([{ id: 'a', needs: ['b'] }, { id: 'b', needs: ['a'] }])
 * // { kind: 'cycle', cycle: ['a', 'b', 'a'] }
 */
export function planProblem(packages: readonly { id: string; needs: readonly string[] }[]): PlanProblem | null {
  const ids = new Set<string>()
  for (const p of packages) {
    if (ids.has(p.id)) return { kind: 'duplicate-id', package: p.id }
    ids.add(p.id)
  }
  for (const p of packages) {
    const unknown = p.needs.find((need) => !ids.has(need))
    if (unknown !== undefined) return { kind: 'unknown-dependency', package: p.id, needs: unknown }
  }
  const cycle = findCycle(new Map(packages.map((p) => [p.id, p.needs])))
  return cycle ? { kind: 'cycle', cycle } : null
}

/**
 * Throws `INVALID_PLAN` (400) naming the problem, or returns the plan.
 *
 * @example
 * checkPlan([{ id: 'a', needs: ['a'], instructions: 'x', clearance: 'dag' }]) // throws: cycle a → a
 */
export function checkPlan<P extends { id: string; needs: readonly string[] }>(packages: readonly P[]): readonly P[] {
  const problem = planProblem(packages)
  if (!problem) return packages
  const message =
    problem.kind === 'duplicate-id'
      ? `the plan has two packages with id ${problem.package}`
      : problem.kind === 'unknown-dependency'
        ? `package ${problem.package} needs ${problem.needs}, which is not in the plan`
        : `the plan has a cycle: ${problem.cycle.join(' → ')}`
  throw new NeuronError('INVALID_PLAN', message, { status: 400, details: problem })
}

/** A cycle as a closed walk (first id repeated last), or null. Iterative DFS: plans may be deep. */
function findCycle(needs: Map<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>()
  for (const root of needs.keys()) {
    if (state.has(root)) continue
    const stack: { id: string; next: number }[] = [{ id: root, next: 0 }]
    state.set(root, 'open')
    while (stack.length > 0) {
      const top = stack.at(-1)!
      const edges = needs.get(top.id) ?? []
      if (top.next >= edges.length) {
        state.set(top.id, 'done')
        stack.pop()
        continue
      }
      const child = edges[top.next++]!
      if (state.get(child) === 'open') {
        const path = stack.map((frame) => frame.id)
        return [...path.slice(path.indexOf(child)), child]
      }
      if (!state.has(child)) {
        state.set(child, 'open')
        stack.push({ id: child, next: 0 })
      }
    }
  }
  return null
}

/**
 * Whether `to` is reachable from `from` by following `needs` edges (so `from` depends on `to`).
 *
 * @example
 * dependsOn(new Map([['c', ['b']], ['b', ['a']]]), 'c', 'a') // true
 */
export function dependsOn(needs: ReadonlyMap<string, readonly string[]>, from: string, to: string): boolean {
  const seen = new Set<string>()
  const stack = [from]
  while (stack.length > 0) {
    const id = stack.pop()!
    if (id === to) return true
    if (seen.has(id)) continue
    seen.add(id)
    stack.push(...(needs.get(id) ?? []))
  }
  return false
}
