/**
 * Counts the storage rows an object writes, the unit Durable Objects bill writes in: every
 * table row and every index entry a statement touches (`cursor.rowsWritten`), plus one row
 * per key put or deleted through the KV APIs, synchronous (`storage.kv`) or not (`storage.put`):
 * they report no count, and each key is one row of their table.
 * A test or benchmark wraps an object's storage, runs the operation, then reads the total.
 */

/** What a wrapped storage wrote, statement by statement. */
export interface RowCount {
  /** Rows written since the wrapper was installed (or last `reset`). */
  total(): number
  /** Rows per statement text, for finding where they go. */
  byStatement(): Record<string, number>
  reset(): void
  /** Puts the storage's own methods back. */
  restore(): void
}

/**
 * Wraps `storage.sql.exec` and the synchronous KV writes of one object's storage.
 * Cursors are read when the count is asked for, so a lazily consumed cursor counts in full.
 *
 * @example
 * const rows = countRows(ctx.storage)
 * ledger.append(draft)
 * rows.total() // 2 in a session: the row and its id index entry
 */
export function countRows(storage: DurableObjectStorage): RowCount {
  const sql = storage.sql
  const kv = storage.kv
  const exec = sql.exec
  const put = kv.put
  const remove = kv.delete
  const putAsync = storage.put
  const removeAsync = storage.delete
  let cursors: { query: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }[] = []
  let kvWrites = 0
  sql.exec = function (query: string, ...bindings: unknown[]) {
    const cursor = exec.call(sql, query, ...bindings)
    cursors.push({ query, cursor })
    return cursor
  } as typeof sql.exec
  kv.put = function (...args: Parameters<typeof put>) {
    kvWrites++
    return put.apply(kv, args)
  } as typeof kv.put
  kv.delete = function (...args: Parameters<typeof remove>) {
    kvWrites++
    return remove.apply(kv, args)
  } as typeof kv.delete
  const keys = (first: unknown) => (typeof first === 'string' ? 1 : Array.isArray(first) ? first.length : Object.keys(first as object).length)
  storage.put = function (first: unknown, ...rest: unknown[]) {
    kvWrites += keys(first)
    return (putAsync as (...args: unknown[]) => Promise<void>).call(storage, first, ...rest)
  } as typeof storage.put
  storage.delete = function (first: unknown, ...rest: unknown[]) {
    kvWrites += keys(first)
    return (removeAsync as (...args: unknown[]) => Promise<unknown>).call(storage, first, ...rest)
  } as typeof storage.delete
  const byStatement = () => {
    const out: Record<string, number> = {}
    for (const { query, cursor } of cursors) {
      const key = query.replace(/\s+/g, ' ').slice(0, 80)
      if (cursor.rowsWritten > 0) out[key] = (out[key] ?? 0) + cursor.rowsWritten
    }
    if (kvWrites > 0) out['kv put/delete (keys)'] = kvWrites
    return out
  }
  return {
    total: () => cursors.reduce((sum, { cursor }) => sum + cursor.rowsWritten, 0) + kvWrites,
    byStatement,
    reset: () => {
      cursors = []
      kvWrites = 0
    },
    restore: () => {
      sql.exec = exec
      kv.put = put
      kv.delete = remove
      storage.put = putAsync
      storage.delete = removeAsync
    },
  }
}
