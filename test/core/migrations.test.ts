/**
 * Migrations owned per module, composed per class (objects/core/migrations.ts):
 * - an object the old one-folder-per-class migrations built is recognised as up to date by its
 *   class's composition: its schema and data are untouched, only the records of what it holds are
 *   written, once; and a fresh object built by the composition has the very same schema;
 * - two modules' folders never shadow each other, whatever the times drizzle-kit stamped on them.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { drizzle } from 'drizzle-orm/durable-sqlite'
import { migrate as drizzleMigrate } from 'drizzle-orm/durable-sqlite/migrator'
import { describe, expect, it } from 'vitest'
import legacyDirectory from '../../migrations/legacy/directory/migrations.js'
import legacyGraph from '../../migrations/legacy/graph/migrations.js'
import legacyLedgerObject from '../../migrations/legacy/ledger-object/migrations.js'
import ledgerFolder from '../../migrations/ledger/migrations.js'
import { migrate, moduleMigrations, type Tables, tables } from '../../objects/core/migrations.ts'
import { TABLES as DIRECTORY_TABLES } from '../../objects/directory/directory-object.ts'
import { TABLES as GRAPH_TABLES } from '../../objects/graph/graph-object.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { TABLES as LEDGER_OBJECT_TABLES } from '../../objects/ledger-object/ledger-object.ts'
import { TABLES as METER_TABLES } from '../../objects/meter/meter-object.ts'
import { TABLES as SESSION_TABLES } from '../../objects/session/wiring/session-object.ts'
import { uniqueName } from '../support/ledger.ts'
import { countRows } from '../support/rows.ts'

type DrizzleFolder = Parameters<typeof drizzleMigrate>[1]

const userTables = (storage: DurableObjectStorage) =>
  storage.sql
    .exec<{ name: string; sql: string }>(`select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '_cf_%'`)
    .toArray()

/** Drops every table of the object (virtual ones first: they take their shadow tables with them). */
function wipe(storage: DurableObjectStorage): void {
  for (const t of userTables(storage).filter((t) => /^CREATE VIRTUAL/i.test(t.sql))) storage.sql.exec(`drop table ${t.name}`)
  for (const t of userTables(storage)) storage.sql.exec(`drop table if exists ${t.name}`)
}

/** The schema as SQLite keeps it, quoting and spacing aside (a table rebuilt and renamed is quoted differently). */
function schemaOf(storage: DurableObjectStorage): string[] {
  return storage.sql
    .exec<{ sql: string }>(`select sql from sqlite_master where sql is not null and name not like '_cf_%' and name != '__drizzle_migrations' order by name`)
    .toArray()
    .map((r) => r.sql.replace(/[`"]/g, '').replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim())
}

const recorded = (storage: DurableObjectStorage) =>
  storage.sql.exec<{ hash: string }>(`select hash from __drizzle_migrations where hash != '' order by hash`).toArray().map((r) => r.hash)

const note = (i: number) => ({ topic: 'scratch.t1', type: 'note', author: 'user:ada', time: 1000 + i, payload: { i } })

describe('an object the old per-class folder migrated, opened with its class composition', () => {
  for (const [what, stub, legacy, composed, modules] of [
    ['an embedded ledger (meter)', () => env.METERS.getByName(uniqueName('composed')), ledgerFolder, METER_TABLES, ['ledger/0000_init', 'ledger/0001_log_by_topic']],
    ['a graph', () => env.GRAPHS.getByName(uniqueName('composed')), legacyGraph, GRAPH_TABLES, ['graph/0000_init', 'graph/0001_memory_fts', 'ledger-by-seq/0000_init']],
    ['a directory shard', () => env.DIRECTORY.getByName(uniqueName('composed')), legacyDirectory, DIRECTORY_TABLES, ['ledger-by-seq/0000_init']],
    ['the standalone ledger', () => env.LEDGER.getByName(uniqueName('composed')), legacyLedgerObject, LEDGER_OBJECT_TABLES, ['ledger-by-seq/0000_init', 'ledger-object/0000_verb_indexes']],
  ] as [string, () => DurableObjectStub, unknown, Tables, string[]][]) {
    it(`${what}: recognised as up to date, schema and data untouched; a fresh one gets the same schema`, () =>
      runInDurableObject(stub(), async (_object: unknown, ctx: DurableObjectState) => {
        const storage = ctx.storage
        wipe(storage)
        await drizzleMigrate(drizzle(storage), legacy as DrizzleFolder)
        const ledger = new Ledger(storage)
        const appended = [ledger.append(note(1)), ledger.append(note(2))].map((a) => a.envelope)
        const before = schemaOf(storage)

        const rows = countRows(storage)
        migrate(storage, composed)
        // Only the records of what the object already holds: one row and its id index entry each.
        expect(Object.keys(rows.byStatement())).toEqual([expect.stringMatching(/^INSERT INTO __drizzle_migrations/)])
        expect(rows.total()).toBe(2 * modules.length)
        rows.reset()
        expect(recorded(storage)).toEqual(modules)
        expect(schemaOf(storage)).toEqual(before)
        expect(new Ledger(storage).byTopic('scratch.t1').items).toEqual(appended)
        // The next wake finds nothing to do and writes nothing.
        migrate(storage, composed)
        expect(rows.total()).toBe(0)
        rows.restore()

        wipe(storage)
        migrate(storage, composed)
        expect(schemaOf(storage)).toEqual(before)
        expect(recorded(storage)).toEqual(modules)
      }))
  }
})

describe('a session the ledger folder alone migrated', () => {
  it('gains its workspace table and keeps its log; the next wake writes nothing', () =>
    runInDurableObject(env.SESSIONS.getByName(uniqueName('composed')), async (_object: unknown, ctx: DurableObjectState) => {
      const storage = ctx.storage
      wipe(storage)
      await drizzleMigrate(drizzle(storage), ledgerFolder as DrizzleFolder)
      const appended = [new Ledger(storage).append(note(1)).envelope]
      expect(userTables(storage).map((t) => t.name)).not.toContain('workspace_file')
      migrate(storage, SESSION_TABLES)
      expect(userTables(storage).map((t) => t.name)).toContain('workspace_file')
      expect(recorded(storage)).toEqual(['ledger/0000_init', 'ledger/0001_log_by_topic', 'workspace/0000_workspace_file'])
      expect(new Ledger(storage).byTopic('scratch.t1').items).toEqual(appended)
      const rows = countRows(storage)
      migrate(storage, SESSION_TABLES)
      expect(rows.total()).toBe(0)
      rows.restore()
    }))
})

describe('composing modules', () => {
  const folder = (entries: [tag: string, when: number][]) => ({
    journal: { entries: entries.map(([tag, when], idx) => ({ idx, when, tag, version: '6', breakpoints: true })) },
    migrations: Object.fromEntries(entries.map(([tag], idx) => [`m${String(idx).padStart(4, '0')}`, `CREATE TABLE t_${tag} (x integer);--> statement-breakpoint\nINSERT INTO t_${tag} VALUES (${idx})`])),
  })

  it("a module's migration stamped earlier than another module's last one still applies (drizzle's one high-water mark would skip it)", () =>
    runInDurableObject(env.LEDGER.getByName(uniqueName('modules')), async (_object: unknown, ctx: DurableObjectState) => {
      const storage = ctx.storage
      wipe(storage)
      migrate(storage, tables([moduleMigrations('a', folder([['a0', 200]])), moduleMigrations('b', folder([['b0', 100]]))]))
      migrate(storage, tables([moduleMigrations('a', folder([['a0', 200], ['a1', 150]])), moduleMigrations('b', folder([['b0', 100], ['b1', 120]]))]))
      expect(recorded(storage)).toEqual(['a/a0', 'a/a1', 'b/b0', 'b/b1'])
      for (const t of ['a0', 'a1', 'b0', 'b1']) expect(storage.sql.exec(`select count(*) as n from t_${t}`).one().n).toBe(1)
    }))

  it('a failing migration applies nothing of the composition, and a legacy folder naming an uncomposed module is refused', () =>
    runInDurableObject(env.LEDGER.getByName(uniqueName('modules')), async (_object: unknown, ctx: DurableObjectState) => {
      const storage = ctx.storage
      wipe(storage)
      const broken = { ...folder([['c0', 1]]), migrations: { m0000: 'CREATE TABLE t_c0 (x integer);--> statement-breakpoint\nINSERT INTO nowhere VALUES (1)' } }
      expect(() => migrate(storage, tables([moduleMigrations('a', folder([['a0', 1]])), moduleMigrations('c', broken)]))).toThrow(/nowhere/)
      expect(userTables(storage).map((t) => t.name)).toEqual([])
      expect(() => tables([moduleMigrations('a', folder([['a0', 1]]))], { folder: folder([['old', 1]]), equals: { b: 'b0' } })).toThrow(/b\/b0, which is not composed/)
    }))
})
