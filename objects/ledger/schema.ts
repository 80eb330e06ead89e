/**
 * The ledger's tables: topic log, artifact blobs, schema registry. drizzle-kit generates
 * `migrations/ledger/` from this file; any Durable Object that embeds a ledger applies
 * those migrations in its constructor (the graph and the standalone ledger object apply
 * their own folders, generated from this file plus their own tables or indexes).
 */
import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/**
 * The log's columns. `seq` is the object's aggregate sequence, an alias of SQLite's rowid
 * (no AUTOINCREMENT: the log never deletes, so rowids are never reused, and AUTOINCREMENT
 * would write a `sqlite_sequence` row on every append); `id` is the content address.
 */
const logColumns = {
  seq: integer('seq').primaryKey(),
  id: text('id').notNull().unique(),
  topic: text('topic').notNull(),
  type: text('type').notNull(),
  parent: text('parent'),
  author: text('author').notNull(),
  time: integer('time').notNull(),
  schema: text('schema'),
  headers: text('headers').notNull(),
  payload: text('payload'),
  payloadRef: text('payload_ref'),
  artifacts: text('artifacts').notNull(),
}

/**
 * Append-only topic log, as every object that embeds a ledger keeps it. Storage bills each
 * index entry as a row written, so an append writes three rows: the row, its `id` entry
 * (content-id dedupe, `get`, causality joins) and its `(topic, seq)` entry (by-topic pages,
 * folds, tails, `latest`). Objects that serve the by-type, by-time and descendants verbs
 * add their indexes in their own schema (objects/ledger-object/schema.ts).
 */
export const log = sqliteTable('log', logColumns, (t) => [index('log_topic_seq').on(t.topic, t.seq)])

/**
 * The log of an object that serves every query verb (the standalone LedgerObject): the
 * same table with an index for each of by-type, by-time and descendants.
 */
export function logWithVerbIndexes() {
  return sqliteTable('log', logColumns, (t) => [
    index('log_topic_seq').on(t.topic, t.seq),
    index('log_type_seq').on(t.type, t.seq),
    index('log_time_seq').on(t.time, t.seq),
    index('log_parent').on(t.parent),
  ])
}

/** Content-addressed blobs; one row per blob, bytes in chunks below the 2 MB row limit. */
export const artifact = sqliteTable('artifact', {
  hash: text('hash').primaryKey(),
  size: integer('size').notNull(),
  kind: text('kind'),
  chunks: integer('chunks').notNull(),
  time: integer('time').notNull(),
})

export const artifactChunk = sqliteTable(
  'artifact_chunk',
  {
    hash: text('hash').notNull(),
    idx: integer('idx').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.hash, t.idx] })],
)

/** Schema registry (planes 1–3): immutable JSON Schemas by ref; versions coexist as refs. */
export const schemaRegistry = sqliteTable('schema_registry', {
  ref: text('ref').primaryKey(),
  plane: integer('plane').notNull(),
  jsonSchema: text('json_schema').notNull(),
  hash: text('hash').notNull(),
  time: integer('time').notNull(),
})
