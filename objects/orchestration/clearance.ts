/**
 * CLEARANCE, as a pure decision: a package's declaration (the resources it will
 * read and write) against every other package that has declared and not
 * finished. Two packages with no path between them in the DAG that touch the
 * same resource, write/write or write/read, conflict: the DAG is missing an
 * edge. The decision names each conflict and the edge that resolves it (the
 * package already declared goes first); adding it can never close a cycle,
 * because no path joined the two before.
 */
import { dependsOn } from './plan.ts'

/** The resources a package will touch: free-form keys such as `file:src/a.ts` or `doc:roadmap`. */
export interface Declaration {
  reads: string[]
  writes: string[]
}

export interface Conflict {
  with: string
  resource: string
  kind: 'write/write' | 'write/read' | 'read/write'
}

export interface ClearanceDecision {
  conflicts: Conflict[]
  /** Edges to add, `[before, after]`: `after` now needs `before`. */
  edges: [string, string][]
}

/**
 * @example
 * clear(new Map([['a', []], ['b', []]]), 'b', { reads: [], writes: ['file:x'] }, new Map([['a', { reads: [], writes: ['file:x'] }]]))
 * // { conflicts: [{ with: 'a', resource: 'file:x', kind: 'write/write' }], edges: [['a', 'b']] }
 */
export function clear(
  needs: ReadonlyMap<string, readonly string[]>,
  pkg: string,
  mine: Declaration,
  others: ReadonlyMap<string, Declaration>,
): ClearanceDecision {
  const conflicts: Conflict[] = []
  const edges: [string, string][] = []
  for (const [other, theirs] of others) {
    if (other === pkg || dependsOn(needs, pkg, other) || dependsOn(needs, other, pkg)) continue
    const found = overlap(mine, theirs).map((c) => ({ with: other, ...c }))
    if (found.length === 0) continue
    conflicts.push(...found)
    edges.push([other, pkg])
  }
  return { conflicts, edges }
}

function overlap(mine: Declaration, theirs: Declaration): Omit<Conflict, 'with'>[] {
  const out: Omit<Conflict, 'with'>[] = []
  const theirWrites = new Set(theirs.writes)
  const theirReads = new Set(theirs.reads)
  for (const resource of new Set(mine.writes)) {
    if (theirWrites.has(resource)) out.push({ resource, kind: 'write/write' })
    else if (theirReads.has(resource)) out.push({ resource, kind: 'write/read' })
  }
  for (const resource of new Set(mine.reads)) {
    if (theirWrites.has(resource) && !mine.writes.includes(resource)) out.push({ resource, kind: 'read/write' })
  }
  return out
}
