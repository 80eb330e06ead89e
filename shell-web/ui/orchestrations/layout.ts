/**
 * Where each package of an orchestration is drawn: one column per depth (the
 * longest chain of `needs` before it), packages of a column stacked in plan
 * order. Pure, so it is unit-tested without a browser.
 */

export interface Placed {
  id: string
  column: number
  row: number
}

/**
 * @example
 * layout([{ id: 'a', needs: [] }, { id: 'b', needs: ['a'] }, { id: 'c', needs: ['a'] }])
 * // a: column 0 row 0; b: column 1 row 0; c: column 1 row 1
 */
export function layout(packages: readonly { id: string; needs: readonly string[] }[]): Map<string, Placed> {
  const byId = new Map(packages.map((p) => [p.id, p]))
  const depth = new Map<string, number>()
  const depthOf = (id: string, seen: Set<string>): number => {
    const known = depth.get(id)
    if (known !== undefined) return known
    // A plan is a DAG (checked on the server); `seen` only guards against a malformed view.
    if (seen.has(id)) return 0
    seen.add(id)
    const needs = byId.get(id)?.needs.filter((n) => byId.has(n)) ?? []
    const d = needs.length === 0 ? 0 : 1 + Math.max(...needs.map((n) => depthOf(n, seen)))
    depth.set(id, d)
    return d
  }
  const rows = new Map<number, number>()
  const placed = new Map<string, Placed>()
  for (const p of packages) {
    const column = depthOf(p.id, new Set())
    const row = rows.get(column) ?? 0
    rows.set(column, row + 1)
    placed.set(p.id, { id: p.id, column, row })
  }
  return placed
}
