/**
 * The graph's index tables. The truth is the ledger: every node and edge is an
 * envelope in `log`. These tables only index what the graph's query verbs read,
 * because storage bills every row written and every index entry is a row:
 *
 * - `edge`: one row per edge envelope, clustered by `(source, type, seq)` in a
 *   `WITHOUT ROWID` table (the row is its own source index: neighbours out,
 *   paths, cycle checks) plus one index by `(target, type, seq)` (neighbours in,
 *   a node's fold): two rows per edge where a rowid table with two indexes wrote
 *   three. A lookup by sequence alone goes through the log, whose envelope names
 *   the edge's source and type (its topic and type)
 * - `retired`: one row per pruned or superseded edge, keyed by that edge, so the
 *   live-edge filter is a primary-key probe
 * - `memory_text` (FTS5, created by a hand-written migration because drizzle
 *   cannot describe virtual tables): the text of each live memory edge's node,
 *   for BM25 recall
 *
 * drizzle-kit generates `migrations/graph/` from this file (drizzle.graph.config.ts). The log
 * these tables point into is the ledger's, keyed by `seq` (objects/ledger/schema-by-seq.ts, its
 * own migrations): a GraphObject composes both (graph-object.ts).
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * Edge index: `seq` is the edge envelope's sequence in `log` (so reading the envelope is a rowid
 * probe). drizzle cannot say `WITHOUT ROWID`; the migration that builds the table adds it by hand
 * (migrations/graph/0000_init.sql).
 */
export const edge = sqliteTable(
  'edge',
  {
    source: text('source').notNull(),
    type: text('type').notNull(),
    seq: integer('seq').notNull(),
    target: text('target').notNull(),
  },
  (t) => [primaryKey({ columns: [t.source, t.type, t.seq] }), index('edge_target').on(t.target, t.type, t.seq)],
)

/** Retired edges: pruned or superseded. `by` is the retiring envelope's sequence. */
export const retired = sqliteTable('retired', {
  edge: integer('edge').primaryKey(),
  by: integer('by').notNull(),
})
