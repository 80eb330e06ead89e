/**
 * The log's schema change applied to a database the old schema created, with data in it: an
 * embedded ledger's log becomes clustered by (topic, seq) with only the id index, the standalone
 * ledger's loses AUTOINCREMENT and keeps an index per verb. Every envelope keeps its sequence and
 * id, appends continue after the last sequence, a re-append is still a duplicate, and an append
 * writes two rows (a directory shard: three; the standalone ledger: six) instead of seven.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { drizzle } from 'drizzle-orm/durable-sqlite'
import { migrate } from 'drizzle-orm/durable-sqlite/migrator'
import { describe, expect, it } from 'vitest'
import ledgerMigrations from '../../migrations/ledger/migrations.js'
import ledgerObjectMigrations from '../../migrations/legacy/ledger-object/migrations.js'
import directoryMigrations from '../../migrations/legacy/directory/migrations.js'
import { migrate as migrateTables, type Tables } from '../../objects/core/migrations.ts'
import { TABLES as DIRECTORY_TABLES } from '../../objects/directory/directory-object.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { TABLES as LEDGER_OBJECT_TABLES } from '../../objects/ledger-object/ledger-object.ts'
import { TABLES as METER_TABLES } from '../../objects/meter/meter-object.ts'
import { uniqueName } from '../support/ledger.ts'
import { countRows } from '../support/rows.ts'

type Folder = Parameters<typeof migrate>[1]

/** Empties an object's storage and builds the schema of the first migration only: the old log. */
async function oldSchema(storage: DurableObjectStorage, folder: Folder): Promise<void> {
  for (const table of ['log', 'artifact', 'artifact_chunk', 'schema_registry', '__drizzle_migrations']) storage.sql.exec(`drop table if exists ${table}`)
  const first = { journal: { ...folder.journal, entries: folder.journal.entries.slice(0, 1) }, migrations: { m0000: folder.migrations.m0000! } }
  await migrate(drizzle(storage), first)
}

const logSql = (storage: DurableObjectStorage) => storage.sql.exec<{ sql: string }>(`select sql from sqlite_master where name = 'log'`).one().sql
const indexes = (storage: DurableObjectStorage) =>
  storage.sql.exec<{ name: string }>(`select name from sqlite_master where type = 'index' and tbl_name = 'log' and sql is not null order by name`).toArray().map((r) => r.name)
const note = (i: number, topic = 'session.s1') => ({ topic, type: 'note', author: 'user:ada', time: 1000 + i, payload: { i } })

describe('the log migration on a database the old schema created', () => {
  for (const [what, stub, folder, composed, expected, rowsPerAppend] of [
    ['an embedded ledger (meter, config, orchestration; a session adds its workspace)', () => env.METERS.getByName(uniqueName('migrate')), ledgerMigrations, METER_TABLES, ['log_id_unique'], 2],
    ['a directory shard', () => env.DIRECTORY.getByName(uniqueName('migrate')), directoryMigrations, DIRECTORY_TABLES, ['log_id_unique', 'log_topic_seq'], 3],
    ['the standalone ledger object', () => env.LEDGER.getByName(uniqueName('migrate')), ledgerObjectMigrations, LEDGER_OBJECT_TABLES, ['log_id_unique', 'log_parent', 'log_time_seq', 'log_topic_seq', 'log_type_seq'], 6],
  ] as [string, () => DurableObjectStub, unknown, Tables, string[], number][]) {
    it(`${what}: data kept, sequences continue, ${rowsPerAppend} rows per append`, () =>
      runInDurableObject(stub(), async (_object, ctx) => {
        const storage = ctx.storage
        await oldSchema(storage, folder as unknown as Folder)
        expect(logSql(storage)).toMatch(/AUTOINCREMENT/)
        const ledger = new Ledger(storage)
        const before = [ledger.append(note(1)), ledger.append(note(2)), ledger.append(note(3, 'session.s1.config'))].map((a) => a.envelope)
        const oldRows = countRows(storage)
        ledger.append(note(4, 'scratch'))
        // The old schema: the row, five index entries and the AUTOINCREMENT counter.
        expect(oldRows.total()).toBe(7)
        oldRows.restore()

        migrateTables(storage, composed)
        expect(logSql(storage)).not.toMatch(/AUTOINCREMENT/)
        expect(/WITHOUT ROWID/.test(logSql(storage))).toBe(rowsPerAppend === 2)
        expect(indexes(storage)).toEqual(expected)
        const after = new Ledger(storage)
        expect(after.byTopic('session.s1').items).toEqual(before.slice(0, 2))
        expect(after.latest('session.s1.config')).toEqual(before[2])
        expect(after.get(before[0]!.id)).toEqual(before[0])
        const rows = countRows(storage)
        const next = after.append(note(5))
        expect(rows.total()).toBe(rowsPerAppend)
        rows.restore()
        expect(next.envelope.seq).toBe(5)
        expect(after.append(note(1))).toEqual({ envelope: before[0], duplicate: true })
        // Applying the folder again on the next wake changes nothing.
        migrateTables(storage, composed)
        expect(after.head()).toBe(5)
      }))
  }
})
