/**
 * Migrations owned per module, composed per object class. Each module that keeps tables owns one
 * drizzle-kit folder generated from its own schema file (the ledger's, the workspace's, the
 * graph's...); each Durable Object class lists the folders it needs, in order, in one constant
 * beside its class (`tables(...)`), and applies them in its constructor inside
 * `ctx.blockConcurrencyWhile`. docs/ARCHITECTURE.md ("Adding a table") has the steps.
 *
 * What is applied is recorded in drizzle's own table (`__drizzle_migrations`), one row per
 * migration, named `{module}/{tag}`, so two modules' folders never shadow each other: drizzle's
 * migrator keeps a single high-water mark by time, under which a module's migration generated
 * earlier than another module's last one would be skipped.
 *
 * Objects built before their tables were composed recorded drizzle's rows (no name, the folder's
 * time) for one folder per class. They are adopted on their first wake, in the same transaction:
 * - a migration of a composed folder whose time is recorded is taken as applied (the ledger's
 *   and the workspace's folders are the ones those objects applied);
 * - a class whose tables came from a folder of its own (kept, frozen, under `migrations/legacy/`)
 *   names it with what it amounts to: its pending migrations are applied the way drizzle would,
 *   then the modules' migrations it amounts to are recorded as applied.
 * After that, every composed migration not yet recorded runs, in order. A wake with nothing to do
 * reads one table and writes nothing.
 *
 * @example
 * const TABLES = tables([LEDGER_BY_SEQ, GRAPH_TABLES], { folder: legacyGraph, equals: { 'ledger-by-seq': '0000_init', graph: '0001_memory_fts' } })
 * void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
 */

/** A drizzle-kit output folder, as its `migrations.js` exports it. */
export interface MigrationFolder {
  readonly journal: { readonly entries: readonly { readonly idx: number; readonly when: number; readonly tag: string }[] }
  readonly migrations: Readonly<Record<string, string>>
}

/** One module's migrations: its name (the prefix of what is recorded) and its folder. */
export interface ModuleMigrations {
  readonly module: string
  readonly folder: MigrationFolder
}

/** The folder a class's objects were built from before composition, and what it amounts to: module → its last tag covered. */
export interface LegacyFolder {
  readonly folder: MigrationFolder
  readonly equals: Readonly<Record<string, string>>
}

/** A class's tables: the modules' folders in the order they apply. */
export interface Tables {
  readonly modules: readonly ModuleMigrations[]
  readonly legacy?: LegacyFolder
}

/**
 * Names a module's drizzle-kit folder.
 *
 * @example
 * export const WORKSPACE_TABLES = moduleMigrations('workspace', workspaceFolder)
 */
export function moduleMigrations(module: string, folder: unknown): ModuleMigrations {
  return { module, folder: folder as MigrationFolder }
}

/**
 * A class's composition: the modules' folders in order, and the legacy folder its objects may carry.
 *
 * @example
 * const TABLES = tables([LEDGER_TABLES])
 */
export function tables(modules: readonly ModuleMigrations[], legacy?: { folder: unknown; equals: Record<string, string> }): Tables {
  for (const [module, tag] of Object.entries(legacy?.equals ?? {})) {
    const found = modules.find((m) => m.module === module)
    if (!found?.folder.journal.entries.some((e) => e.tag === tag)) throw new Error(`migrations: the legacy folder amounts to ${module}/${tag}, which is not composed`)
  }
  return { modules, ...(legacy ? { legacy: { folder: legacy.folder as MigrationFolder, equals: legacy.equals } } : {}) }
}

const TABLE = '__drizzle_migrations'
type Entry = { name: string; when: number; statements: string[] }

const statementsOf = (folder: MigrationFolder, entry: { idx: number; tag: string }): string[] => {
  const text = folder.migrations[`m${String(entry.idx).padStart(4, '0')}`]
  if (text === undefined) throw new Error(`migrations: ${entry.tag} is missing from its folder`)
  return text.split('--> statement-breakpoint').filter((s) => s.replace(/--[^\n]*/g, '').trim() !== '')
}

/**
 * Brings an object's tables up to its composition, in one transaction (synchronous: no other
 * request runs meanwhile). Idempotent, so every wake calls it.
 *
 * @example
 * void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
 */
export function migrate(storage: DurableObjectStorage, plan: Tables): void {
  storage.transactionSync(() => {
    const sql = storage.sql
    // drizzle's own table, as its migrator creates it, so objects it migrated read the same.
    sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`)
    const rows = sql.exec<{ hash: string; created_at: number }>(`SELECT hash, created_at FROM ${TABLE}`).toArray()
    const applied = new Set(rows.filter((r) => r.hash !== '').map((r) => r.hash))
    const record = (name: string, when: number) => {
      sql.exec(`INSERT INTO ${TABLE} (hash, created_at) VALUES (?, ?)`, name, when)
      applied.add(name)
    }
    const unnamed = rows.filter((r) => r.hash === '').map((r) => Number(r.created_at))
    if (unnamed.length > 0 && applied.size === 0) adopt(plan, unnamed, record, (statement) => void sql.exec(statement))
    for (const entry of entriesOf(plan)) {
      if (applied.has(entry.name)) continue
      for (const statement of entry.statements) sql.exec(statement)
      record(entry.name, entry.when)
    }
  })
}

function entriesOf(plan: Tables): Entry[] {
  return plan.modules.flatMap(({ module, folder }) =>
    folder.journal.entries.map((e) => ({ name: `${module}/${e.tag}`, when: e.when, statements: statementsOf(folder, e) })),
  )
}

/** Records what an object drizzle migrated one folder per class already holds (see the header). */
function adopt(plan: Tables, unnamed: number[], record: (name: string, when: number) => void, run: (statement: string) => void): void {
  const legacy = plan.legacy
  if (legacy) {
    // What drizzle's migrator would do with the class's old folder: every migration later than the last recorded.
    let last = Math.max(...unnamed)
    for (const entry of legacy.folder.journal.entries) {
      if (entry.when <= last) continue
      for (const statement of statementsOf(legacy.folder, entry)) run(statement)
      last = entry.when
    }
    for (const { module, folder } of plan.modules) {
      const through = legacy.equals[module]
      if (through === undefined) continue
      for (const e of folder.journal.entries) {
        record(`${module}/${e.tag}`, e.when)
        if (e.tag === through) break
      }
    }
    return
  }
  const recorded = new Set(unnamed)
  for (const entry of entriesOf(plan)) if (recorded.has(entry.when)) record(entry.name, entry.when)
}
