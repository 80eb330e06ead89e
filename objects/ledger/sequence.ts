/**
 * The log's next sequence, without a read per append.
 *
 * A log clustered by `(topic, seq)` has no rowid to number its rows, so the ledger assigns each
 * sequence itself: the last one plus one. Reading the last one is a query that hops from topic to
 * topic (see `headSql`), so it is read once and then carried forward, together with the storage
 * connection's write count (`total_changes()`) at that moment. Any write since, by this ledger's
 * own stores or by anything else on the object's storage (another `Ledger` on the same storage, a
 * `kv` put, another table), moves that count.
 *
 * The count is checked inside the insert itself (`… where total_changes() = ?`), so an append in the
 * steady state is one statement: a stale guess inserts nothing, and the append reads the head and
 * the count again and inserts once more. Writes this ledger makes in its other tables (artifacts)
 * are counted here (`wrote`), so storing an artifact does not cost the next append a head read.
 * Those counts must be exact (SQLite's: one change per row inserted, index entries not counted):
 * one too few only costs a head read, but one too many could hide another writer's row
 * (test/ledger/ledger.test.ts interleaves a second ledger after an artifact put).
 */

/** A sequence to insert at, and the connection's write count it is valid for. */
export interface NextSeq {
  seq: number
  writes: number
  /** True when carried forward from the last append (not read just now): the insert may find it stale. */
  guessed: boolean
}

/**
 * @example
 * const sequence = new Sequence(storage.sql)
 * let next = sequence.next()
 * if (insertAt(next) === 0 && next.guessed) next = sequence.readHead() // stale: someone else wrote
 * sequence.appended(next)
 */
export class Sequence {
  /** The statement that reads the last sequence, which depends on how the log is keyed (see `headSql`). */
  private headQuery: string | undefined
  /** The last sequence and the connection's write count it holds for; null until read. */
  private known: { head: number; writes: number } | null = null

  constructor(private readonly sql: SqlStorage) {}

  /** The sequence the next append takes: carried forward when known, read otherwise. */
  next(): NextSeq {
    return this.known ? { seq: this.known.head + 1, writes: this.known.writes, guessed: true } : this.readHead()
  }

  /** Reads the last sequence and the write count now. */
  readHead(): NextSeq {
    const writes = this.sql.exec<{ n: number }>('select total_changes() as n').one().n
    return { seq: this.head() + 1, writes, guessed: false }
  }

  /** The insert at `next` went in: one row more than the count it was checked against. */
  appended(next: NextSeq): void {
    this.known = { head: next.seq, writes: next.writes + 1 }
  }

  /**
   * This ledger changed `changes` rows of its other tables (as SQLite counts changes: one per row
   * inserted, not per index entry). If nothing else wrote meanwhile, the carried count stays exact.
   */
  wrote(changes: number): void {
    if (this.known) this.known.writes += changes
  }

  /** The last sequence written, 0 for an empty log. */
  head(): number {
    this.headQuery ??= headSql(this.sql)
    return this.sql.exec<{ head: number }>(this.headQuery).one().head
  }
}

/**
 * drizzle's `insert … values (…) on conflict …` as `insert … select … where total_changes() = ? on conflict …`:
 * the same row, bound the same way, plus the write count its sequence was decided at as the last parameter.
 *
 * @example
 * guarded('insert into "log" ("seq") values (?) on conflict ("log"."id") do nothing')
 * // 'insert into "log" ("seq") select ? where total_changes() = ? on conflict ("log"."id") do nothing'
 */
export function guarded(insert: string): string {
  const parts = /^(insert into .+?\)) values (\(.+?\)) (on conflict .+)$/.exec(insert)
  if (!parts) throw new Error(`ledger: unexpected drizzle insert statement: ${insert}`)
  // The WHERE also keeps SQLite from reading the ON CONFLICT as a join constraint of the SELECT.
  return `${parts[1]} select ${parts[2]!.slice(1, -1)} where total_changes() = ? ${parts[3]}`
}

/**
 * How to read the last sequence. A log keyed by `seq` (the rowid) answers with one probe. A log
 * clustered by `(topic, seq)` has no index on `seq` alone, so the query hops from each topic to
 * the next through the primary key and takes the largest last sequence: one probe per topic,
 * and an object that embeds a ledger writes only a handful of topics.
 */
function headSql(sql: SqlStorage): string {
  const table = sql.exec<{ sql: string }>(`select sql from sqlite_master where type = 'table' and name = 'log'`).toArray()[0]
  if (!table || !/without rowid/i.test(table.sql)) return 'select coalesce(max(seq), 0) as head from log'
  return `with recursive topics(topic) as (
      select min(topic) from log
      union all
      select (select min(topic) from log where topic > topics.topic) from topics where topics.topic is not null
    )
    select coalesce(max((select max(seq) from log where log.topic = topics.topic)), 0) as head from topics`
}
