/**
 * Counts billed rows written, for the load harness only (`wrangler dev bench/load/worker.ts`).
 * Durable Objects bill each row written, every index entry included: SQLite's
 * `cursor.rowsWritten` of every `sql.exec`, plus one row per key the key-value
 * APIs write or delete. Each Durable Object class is wrapped so its storage is
 * counted from its first statement; `wrangler dev` runs the worker and all its
 * objects in one isolate, so one module-level counter sees them all.
 */

const written: Record<string, number> = { total: 0 }
/** The same rows by object class, then by what wrote them (a statement's first words, or a key-value key). */
const byStatement: Record<string, Record<string, number>> = {}

/** Rows written since the isolate started: `total`, and by object class. */
export function rowsWritten(): Record<string, number> {
  return written
}

/**
 * Rows written since the isolate started, by object class and by statement (SQL collapsed to
 * its first 60 characters; key-value writes as `kv <key>`, ids after a `:` folded).
 */
export function rowsByStatement(): Record<string, Record<string, number>> {
  return byStatement
}

type ObjectClass = new (ctx: DurableObjectState, env: never) => object

/**
 * The same class, with its storage's writes counted.
 *
 * @example
 * export const SessionObject = counted(Base.SessionObject, 'session')
 */
export function counted<T extends ObjectClass>(Base: T, name: string): T {
  // @ts-expect-error a mixin's constructor takes the base's arguments as they are
  return class extends Base {
    constructor(ctx: DurableObjectState, env: never) {
      const statements = (byStatement[name] ??= {})
      countWrites(ctx.storage, (rows, what) => {
        written.total! += rows
        written[name] = (written[name] ?? 0) + rows
        if (rows > 0) statements[what] = (statements[what] ?? 0) + rows
      })
      super(ctx, env)
    }
  }
}

/** A key-value key with its variable part (after a `:`, e.g. a receipt's message id) folded, so writes group by kind. */
const keyKind = (key: string) => `kv ${key.replace(/:.*$/, ':…')}`

function countWrites(storage: DurableObjectStorage, add: (rows: number, what: string) => void): void {
  const sql = storage.sql
  const exec = sql.exec.bind(sql)
  sql.exec = ((query: string, ...bindings: unknown[]) => {
    // SQLite makes every change of a statement on its first step, which `exec` runs.
    const cursor = exec(query, ...bindings)
    add(cursor.rowsWritten, query.replace(/\s+/g, ' ').trim().slice(0, 60))
    return cursor
  }) as typeof sql.exec
  const kv = storage.kv
  const kvPut = kv.put.bind(kv)
  const kvDelete = kv.delete.bind(kv)
  kv.put = ((key: string, value: unknown) => {
    add(1, keyKind(key))
    return kvPut(key, value)
  }) as typeof kv.put
  kv.delete = ((key: string) => {
    add(1, `${keyKind(key)} (delete)`)
    return kvDelete(key)
  }) as typeof kv.delete
  const put = storage.put.bind(storage) as (...args: unknown[]) => Promise<void>
  const del = storage.delete.bind(storage) as (...args: unknown[]) => Promise<unknown>
  storage.put = ((keyOrEntries: string | Record<string, unknown>, ...rest: unknown[]) => {
    for (const key of typeof keyOrEntries === 'string' ? [keyOrEntries] : Object.keys(keyOrEntries)) add(1, keyKind(key))
    return put(keyOrEntries, ...rest)
  }) as typeof storage.put
  storage.delete = ((keys: string | string[], ...rest: unknown[]) => {
    for (const key of typeof keys === 'string' ? [keys] : keys) add(1, `${keyKind(key)} (delete)`)
    return del(keys, ...rest)
  }) as typeof storage.delete
}
