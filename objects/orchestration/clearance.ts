/**
 * CLEARANCE, as a pure decision: a package's declaration (the resources it will
 * read and write) against every other package that has declared and not
 * finished. Two packages with no path between them in the DAG that touch the
 * same resource, write/write or write/read, conflict: the DAG is missing an
 * edge. The decision names each conflict and the edge that resolves it (the
 * package already declared goes first); adding it can never close a cycle,
 * because no path joined the two before.
 *
 * A key is a free-form name, the same resource only when the names are equal, except workspace
 * paths: `workspace:<glob>` names every workspace path the glob matches (objects/workspace/glob.ts),
 * and two of them are the same resource when some path could match both (`mayOverlap`), so two
 * unordered packages whose write globs overlap are serialised like two writers of one key.
 */
import { compileGlob } from '../workspace/glob.ts'
import { dependsOn } from './plan.ts'

/** The prefix of a resource key that names workspace paths by a glob. */
export const WORKSPACE_RESOURCE = 'workspace:'

/** The resources a package will touch: free-form keys such as `doc:roadmap`, or workspace globs (`workspace:src/**`). */
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
  const touches = (keys: string[], resource: string) => keys.some((key) => sameResource(key, resource))
  for (const resource of new Set(mine.writes)) {
    if (touches(theirs.writes, resource)) out.push({ resource, kind: 'write/write' })
    else if (touches(theirs.reads, resource)) out.push({ resource, kind: 'write/read' })
  }
  for (const resource of new Set(mine.reads)) {
    if (touches(theirs.writes, resource) && !mine.writes.includes(resource)) out.push({ resource, kind: 'read/write' })
  }
  return out
}

/** Two keys name the same resource: equal names, or two workspace globs some path could match both. */
function sameResource(a: string, b: string): boolean {
  if (a === b) return true
  if (!a.startsWith(WORKSPACE_RESOURCE) || !b.startsWith(WORKSPACE_RESOURCE)) return false
  return mayOverlap(a.slice(WORKSPACE_RESOURCE.length), b.slice(WORKSPACE_RESOURCE.length))
}

const GLOB_SYNTAX = /[*?[\]{}\\]/

/**
 * Whether some workspace path could match both globs. Exact when either is a literal path (the
 * other glob is tested on it); otherwise it compares what each glob fixes before its first
 * wildcard segment: every path an anchored glob matches starts with those segments, so globs whose
 * fixed segments diverge match no common path, and any others are taken to overlap (serialising
 * `src/*.ts` after `src/*.md` is safe; running two writers of one path at once is not). A glob
 * without `/` matches at any depth, and one that does not compile is taken to overlap everything.
 *
 * @example
 * mayOverlap('src/**', 'src/a.ts') // true
 * mayOverlap('src/**', 'docs/**')  // false
 */
export function mayOverlap(a: string, b: string): boolean {
  const fixedA = fixedSegments(a)
  const fixedB = fixedSegments(b)
  try {
    if (fixedA.literal && fixedB.literal) return fixedA.segments.join('/') === fixedB.segments.join('/')
    if (fixedA.literal) return compileGlob(b).test(fixedA.segments.join('/'))
    if (fixedB.literal) return compileGlob(a).test(fixedB.segments.join('/'))
    compileGlob(a)
    compileGlob(b)
  } catch {
    return true
  }
  const shared = Math.min(fixedA.segments.length, fixedB.segments.length)
  for (let i = 0; i < shared; i++) if (fixedA.segments[i] !== fixedB.segments[i]) return false
  return true
}

/** The segments a glob fixes before its first wildcard (none when it matches at any depth), and whether it is a literal path. */
function fixedSegments(glob: string): { segments: string[]; literal: boolean } {
  const anchored = glob.includes('/')
  const parts = glob.replace(/^\//, '').split('/')
  const literal = anchored && !GLOB_SYNTAX.test(glob) && !glob.endsWith('/')
  if (!anchored) return { segments: [], literal: false }
  const segments: string[] = []
  for (const part of parts) {
    if (part === '' || GLOB_SYNTAX.test(part)) break
    segments.push(part)
  }
  return { segments, literal }
}
