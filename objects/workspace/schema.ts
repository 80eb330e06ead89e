/**
 * The workspace's index table, folded from its `workspace.changed` events (tree.ts) in the same
 * transaction that appends them. One row per change: `(path, seq)` is a version of a path, its
 * `content` the blob's id after the change (`null`: deleted at `seq`). The tree at sequence S is,
 * per path, the version with the greatest `seq` ≤ S, so a read at any sequence is one index seek,
 * and nothing needs folding from zero, ever. Blob bytes live in the ledger's content-addressed
 * artifact store (`artifact`, `artifact_chunk`, 1 MiB chunks), never here.
 *
 * A `WITHOUT ROWID` table clustered by its key, with no other index: a change writes exactly one
 * row. drizzle cannot say `WITHOUT ROWID`; the migration that builds the table adds it by hand
 * (migrations/workspace/0000_workspace_file.sql, which drizzle-kit generates from this file with
 * drizzle.workspace.config.ts). An object that keeps a workspace composes its folder after the
 * ledger's (tables.ts, objects/core/migrations.ts).
 */
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

export const workspaceFile = sqliteTable(
  'workspace_file',
  {
    path: text('path').notNull(),
    seq: integer('seq').notNull(),
    content: text('content'),
    size: integer('size').notNull(),
  },
  (t) => [primaryKey({ columns: [t.path, t.seq] })],
)
