/**
 * The graph's recursive walks over the `edge` index: the bounded paths a reader asks for, and the
 * reachability check that refuses a cycle where an edge type forbids one. Both follow live edges
 * only and stop after `MAX_WALK_ROWS` rows, so a dense graph costs a bounded walk, never an
 * unbounded one; the path walk also stops at `MAX_PATH_DEPTH` hops. The endpoints' existence is
 * the caller's check (graph.ts).
 */
import { NeuronError } from '../core/errors.ts'
import { clampLimit, cutPage } from '../ledger/ledger.ts'
import { LIVE } from './edge-rows.ts'
import { MAX_PATH_DEPTH, MAX_WALK_ROWS } from './vocabulary.ts'
import type { Paged, Reached } from './views.ts'

/** What a path walk may be asked: an end, edge types, a direction, a depth, a page. */
export interface PathQuery {
  to?: string
  types?: string[]
  direction?: 'out' | 'in'
  maxDepth?: number
  after?: number
  limit?: number
}

/**
 * Nodes reachable from `from` along live edges (of `types`, if given), nearest first, at most
 * `maxDepth` hops (`INVALID_DEPTH` outside [1, MAX_PATH_DEPTH]); with `to`, only the paths that end
 * there. `after` is the number of results already read.
 *
 * @example
 * const page = walkPaths(ctx.storage.sql, 'node.turn.t1', { types: ['follows'], maxDepth: 2 })
 */
export function walkPaths(sql: SqlStorage, from: string, options: PathQuery = {}): Paged<Reached> {
  const maxDepth = options.maxDepth ?? 4
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > MAX_PATH_DEPTH) {
    throw new NeuronError('INVALID_DEPTH', `maxDepth must be an integer in [1, ${MAX_PATH_DEPTH}]`, { details: { maxDepth } })
  }
  const limit = clampLimit(options.limit)
  const after = options.after ?? 0
  const [near, far] = options.direction === 'in' ? ['target', 'source'] : ['source', 'target']
  const types = options.types && options.types.length > 0 ? JSON.stringify(options.types) : null
  const rows = sql
    .exec<{ node: string; depth: number; path: string }>(
      `with recursive walk(node, depth, path) as (
         select ?, 0, ''
         union all
         select e.${far}, w.depth + 1, w.path || ' ' || l.id
         from walk w join edge e on e.${near} = w.node join log l on l.seq = e.seq
         where w.depth < ? and (? is null or e.type in (select value from json_each(?))) and ${LIVE}
         order by 2 limit ?
       )
       select node, depth, path from walk where depth > 0 and (? is null or node = ?)
       order by depth, path limit ? offset ?`,
      from,
      maxDepth,
      types,
      types,
      MAX_WALK_ROWS,
      options.to ?? null,
      options.to ?? null,
      limit + 1,
      after,
    )
    .toArray()
  const items = rows.map((row) => ({ address: row.node, depth: row.depth, edges: row.path.trim().split(' ') }))
  return cutPage(items, limit, (_, i) => after + i + 1)
}

/**
 * Whether `to` is reachable from `from` along live `type` edges. A node no `type` edge points at
 * cannot be reached, which spares the walk for the common case of linking a fresh node (a new
 * turn, a new memory).
 *
 * @example
 * if (reaches(sql, target, source, 'follows')) throw cycleError
 */
export function reaches(sql: SqlStorage, from: string, to: string, type: string): boolean {
  if (sql.exec('select 1 from edge where target = ? and type = ? limit 1', to, type).toArray().length === 0) return false
  return (
    sql
      .exec(
        `with recursive reach(node) as (
           select ?
           union
           select e.target from reach join edge e on e.source = reach.node
           where e.type = ? and ${LIVE}
           limit ${MAX_WALK_ROWS}
         )
         select 1 from reach where node = ? limit 1`,
        from,
        type,
        to,
      )
      .toArray().length > 0
  )
}
