/**
 * Budgets as a pure decision: after each burned step, which cap (if any) the
 * burn crossed. The orchestration's cap comes first: crossing it cancels every
 * unfinished package; crossing a package's cancels that package alone.
 */
import type { Budget } from './plan.ts'
import { FINAL_BEATS, type OrchState } from './state.ts'

export interface Breach {
  scope: 'orchestration' | 'package'
  /** The package whose cap was crossed, for `scope: 'package'`. */
  package?: string
  limit: 'tokens' | 'cost'
  used: number
  cap: number
}

/**
 * The cap the burn so far crosses, or null.
 *
 * @example
 * budgetBreach(state, 'b') // { scope: 'package', package: 'b', limit: 'tokens', used: 120, cap: 100 }
 */
export function budgetBreach(state: OrchState, pkgId: string | null): Breach | null {
  const whole = state.status === 'running' ? over(state.burn, state.budget) : null
  if (whole) return { scope: 'orchestration', ...whole }
  const pkg = pkgId === null ? undefined : state.packages.get(pkgId)
  const own = pkg && !FINAL_BEATS.has(pkg.beat) ? over(pkg.burn, pkg.budget) : null
  return pkg && own ? { scope: 'package', package: pkg.id, ...own } : null
}

function over(used: { tokens: number; cost: number }, cap: Budget): Omit<Breach, 'scope' | 'package'> | null {
  if (cap.tokens !== undefined && used.tokens > cap.tokens) return { limit: 'tokens', used: used.tokens, cap: cap.tokens }
  if (cap.cost !== undefined && used.cost > cap.cost) return { limit: 'cost', used: used.cost, cap: cap.cost }
  return null
}
