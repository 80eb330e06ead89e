/**
 * The log's next sequence, without reading the last one on every append.
 *
 * A log clustered by `(topic, seq)` has no rowid to number its rows, so the ledger assigns each
 * sequence itself: the last one plus one. Reading the last one is a query that hops from topic to
 * topic (see `headSql`), so it is read once and then carried forward, together with the storage
 * connection's write count (`total_changes()`) at that moment. Any write since, by anything else
 * on the object's storage (another `Ledger` on the same storage, a `kv` put, another table), moves
 * that count, and the next append reads the head again.
 *
 * Writes this ledger makes in its other tables (artifacts) are counted here (`wrote`), so storing
 * an artifact does not cost the next append a head read. Those counts must be exact (SQLite's: one
 * change per row inserted, index entries not counted): one too few only costs a head read, but one
 * too many could hide another writer's row (test/ledger/ledger.test.ts interleaves a second ledger
 * after an artifact put).
 *
 * Tried and not kept: checking the count inside the insert (`insert … select … where
 * total_changes() = ?`) to save the count's own read. SQLite runs an `insert … select` at about
 * twice the cost of `insert … values` plus that read (in workerd, the session log's layout).
 */

/** A sequence to insert at, and the connection's write count it was decided at. */
export interface NextSeq {
  seq: number
  writes: number
}

/**
 * @example
 * const sequence = new Sequence(storage.sql)
 * const next = sequence.next()
 * if (insertAt(next.seq) > 0) sequence.appended(next)
 */
export class Sequence {
  /** The statement that reads the last sequence, which depends on how the log is keyed (see `headSql`). */
  private headQuery: string | undefined
  /** The last sequence and the connection's write count it holds for; null until read. */
  private known: { head: number; writes: number } | null = null

  constructor(private readonly sql: SqlStorage) {}

  /** The sequence the next append takes: carried forward while nothing else wrote, read otherwise. */
  next(): NextSeq {
    const writes = this.sql.exec<{ n: number }>('select total_changes() as n').one().n
    return { seq: (this.known?.writes === writes ? this.known.head : this.head()) + 1, writes }
  }

  /** The insert at `next` went in: one row more than the count it was decided at. */
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
