/**
 * The log's next sequence, without reading the last one on every append.
 *
 * A log clustered by `(topic, seq)` has no rowid to number its rows, so the ledger assigns each
 * sequence itself: the last one plus one. Reading the last one is a query that hops from topic to
 * topic (see `headSql`), so it is read once per storage and then carried forward by the appends
 * that assign it. Every `Ledger` over one storage shares that carried head (an object builds one
 * ledger; a test may build several on one object), so none of them can hand out a sequence
 * another already gave.
 *
 * This rests on one rule: nothing but a `Ledger` writes a `log` table. A log keyed by
 * `(topic, seq)` has no constraint that would refuse two events of different topics given one
 * sequence, so a write from elsewhere would go unseen; `test/ledger/writers.test.ts` holds the
 * source to the rule. Writes to other tables (receipts, cursors, artifacts) do not matter.
 *
 * Tried before and replaced: carrying the head with SQLite's `total_changes()` and reading it again
 * whenever the count moved. That cost a statement per append, and a head read after every write
 * to any other table (a receipt, a chain cursor), which is most appends that start a turn.
 */

const heads = new WeakMap<DurableObjectStorage, Sequence>()

/**
 * @example
 * const sequence = Sequence.of(ctx.storage)
 * const seq = sequence.next()
 * if (insertAt(seq) > 0) sequence.appended(seq)
 */
export class Sequence {
  /** The statement that reads the last sequence, which depends on how the log is keyed (see `headSql`). */
  private headQuery: string | undefined
  /** The last sequence written; undefined until first read. */
  private last: number | undefined

  private constructor(private readonly sql: SqlStorage) {}

  /** The one sequence of `storage`'s log, whichever ledger asks. */
  static of(storage: DurableObjectStorage): Sequence {
    let sequence = heads.get(storage)
    if (!sequence) heads.set(storage, (sequence = new Sequence(storage.sql)))
    return sequence
  }

  /** The sequence the next append takes: the last one plus one. */
  next(): number {
    this.last ??= this.head()
    return this.last + 1
  }

  /** The insert at `seq` went in. */
  appended(seq: number): void {
    this.last = seq
  }

  /** The last sequence written, 0 for an empty log, read from the log. */
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
