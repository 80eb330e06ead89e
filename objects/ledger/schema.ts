/**
 * The ledger's tables (spec §1.4): topic log, artifact blobs, schema registry.
 * drizzle-kit generates `migrations/ledger/` from this file; any Durable Object
 * that embeds a ledger applies those migrations in its constructor.
 */
import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

/** Append-only topic log. `seq` is the object's aggregate sequence; `id` the content address. */
export const log = sqliteTable(
  'log',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
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
  },
  (t) => [
    index('log_topic_seq').on(t.topic, t.seq),
    index('log_type_seq').on(t.type, t.seq),
    index('log_time_seq').on(t.time, t.seq),
    index('log_parent').on(t.parent),
  ],
)

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
