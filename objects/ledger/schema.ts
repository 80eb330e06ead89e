/**
 * The ledger's tables: topic log, artifact blobs, schema registry. drizzle-kit generates
 * `migrations/ledger/` from this file (the embedded layout); `schema-by-seq.ts` is the layout
 * keyed by sequence (`logBySeq`) with its own folder. tables.ts names both for the object classes
 * that compose them (objects/core/migrations.ts).
 */
import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** The log's columns; `seq` is the object's aggregate sequence, `id` the content address. */
function logColumns<Seq extends ReturnType<typeof integer>>(seq: Seq) {
  return {
    seq,
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
}

/**
 * Append-only topic log, as an object that embeds a ledger for a few topics of its own keeps it
 * (session, meter, config, orchestration):
 * rows clustered by `(topic, seq)` in a `WITHOUT ROWID` table, plus the unique `id` index
 * (content-id dedupe, `get`, causality joins). Storage bills each row and each index entry
 * written, so an append writes two rows. Such objects read their log by topic and by id only
 * and hold a handful of topics, so the next sequence is found by hopping from topic to topic
 * (see ledger.ts). drizzle cannot say `WITHOUT ROWID`; the migration that builds the table
 * adds it by hand (migrations/ledger/0001_log_by_topic.sql).
 */
export const log = sqliteTable('log', logColumns(integer('seq').notNull()), (t) => [primaryKey({ columns: [t.topic, t.seq] })])

/**
 * The log keyed by `seq` as the rowid, for objects that read it by sequence or write many topics:
 * the graph (its edge index points at envelopes by `seq`), a directory shard (a topic per
 * principal), and the standalone LedgerObject, which adds an index for each verb it serves
 * (by type, by time, descendants). Three rows per append, six
 * with the verb indexes. No AUTOINCREMENT: the log never deletes, so rowids are never reused,
 * and AUTOINCREMENT would write a `sqlite_sequence` row on every append.
 */
export function logBySeq(verbs: 'by-topic' | 'every verb') {
  return sqliteTable('log', logColumns(integer('seq').primaryKey()), (t) => [
    index('log_topic_seq').on(t.topic, t.seq),
    ...(verbs === 'every verb' ? [index('log_type_seq').on(t.type, t.seq), index('log_time_seq').on(t.time, t.seq), index('log_parent').on(t.parent)] : []),
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
