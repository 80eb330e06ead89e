/**
 * The ledger (spec §1.4): one append-only topic log per Durable Object, with
 * its artifact store and schema registry, and four paged query verbs. `fold`
 * is the only read that builds state.
 *
 * Every read hands out envelopes with their payload, whether it is stored inline
 * or spilled to the artifact store (`payloadRef`): readers never see the
 * difference. Spilled payloads are read back page by page, and a page ends early
 * once it holds `PAGE_PAYLOAD_BYTES`, so memory stays bounded whatever the sizes.
 *
 * Appends are synchronous: no `await` between sealing and inserting, so each
 * append commits atomically and sequences are assigned without races.
 *
 * Only a `Ledger` inserts into `log` (test/ledger/writers.test.ts holds the code to
 * that), and every `Ledger` over one storage shares that log's last sequence
 * (sequence.ts): it is read once, then kept as appends assign it, so an append
 * reads nothing before its insert.
 */
import { type Page, type PageOptions } from './page.ts'
import { MAX_PAGE } from '../core/limits.ts'
import { and, eq, gte, sql } from 'drizzle-orm'
import { drizzle, type DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite'
import { NeuronError } from '../core/errors.ts'
import { PAGE_PAYLOAD_BYTES } from '../core/limits.ts'
import { ArtifactStore } from './artifacts.ts'
import { DEFAULT_LIMITS, type Envelope, type SealLimits, type Sealed, type Stored, seal } from './envelope.ts'
import type { Json } from './json.ts'
import { fromLogRow, LOG_COLUMNS, type LogRow, payloadWeight } from './log-row.ts'
import { SchemaRegistry } from './registry.ts'
import { Sequence } from './sequence.ts'
import { log } from './schema.ts'

/** The result of an append: the stored envelope and whether it was already there. */
export interface Appended {
  envelope: Stored
  duplicate: boolean
}

/** A fold's result and its resume pointer: the last folded sequence. */
export interface Folded<S> {
  state: S
  cursor: number
}

const FOLD_PAGE = 500

type Row = typeof log.$inferSelect
type InsertRow = Row
type Db = DrizzleSqliteDODatabase<Record<string, unknown>>

/**
 * One object's ledger over its SQLite storage. Build it in the constructor; the object applies
 * its tables (tables.ts, objects/core/migrations.ts) inside `blockConcurrencyWhile` before the
 * first append.
 *
 * @example
 * const ledger = new Ledger(ctx.storage)
 * ledger.append({ topic: 'agent.t1', type: 'step', author: 'agent:t1', payload: { n: 1 } })
 * ledger.byTopic('agent.t1', { after: 0, limit: 50 })
 */
export class Ledger {
  readonly artifacts: ArtifactStore
  readonly schemas: SchemaRegistry
  private readonly db: Db
  private readonly insertSql: string
  private readonly insertOrder: (keyof InsertRow)[]
  private readonly seqOfId
  /** Hands out sequences from the log's last one, shared by every ledger over this storage (sequence.ts). */
  private readonly sequence: Sequence

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly limits: SealLimits = DEFAULT_LIMITS,
  ) {
    this.db = drizzle(storage)
    this.sequence = Sequence.of(storage)
    this.artifacts = new ArtifactStore(storage.sql)
    this.schemas = new SchemaRegistry(this.db)
    const p = (name: string) => sql.placeholder(name)
    // drizzle writes the SQL once; the hot path binds it straight to `sql.exec`.
    // The sequence is assigned here (the last one plus one), since a log clustered by
    // topic has no rowid to assign it; whether the row went in is read with `changes()`
    // (a RETURNING clause costs more than the insert itself).
    const insert = this.db
      .insert(log)
      .values({
        seq: p('seq'),
        id: p('id'),
        topic: p('topic'),
        type: p('type'),
        parent: p('parent'),
        author: p('author'),
        time: p('time'),
        schema: p('schema'),
        headers: p('headers'),
        payload: p('payload'),
        payloadRef: p('payloadRef'),
        artifacts: p('artifacts'),
      })
      .onConflictDoNothing({ target: log.id })
      .toSQL()
    this.insertSql = insert.sql
    this.insertOrder = insert.params.map(placeholderName)
    this.seqOfId = this.db.select({ seq: log.seq }).from(log).where(eq(log.id, p('id'))).prepare()
  }

  /**
   * Seals, validates and appends a draft. Re-appending the same content returns
   * the existing row with `duplicate: true`.
   *
   * @example
   * const { envelope } = ledger.append({ topic: 'session.s1', type: 'note', author: 'user:ada', payload: 'hi' })
   */
  append(draft: unknown): Appended {
    return this.appendSealed(this.seal(draft), draft)
  }

  /** Seals a draft under this ledger's limits, for callers that need its content id before appending. */
  seal(draft: unknown): Sealed {
    return seal(draft, this.limits)
  }

  /**
   * Appends what `seal` returned for `draft`, validating and inserting exactly as `append` does.
   *
   * @example
   * const sealed = ledger.seal(draft)
   * if (ledger.seqOf(sealed.envelope.id) === undefined) ledger.appendSealed(sealed, draft)
   */
  appendSealed(sealed: Sealed, draft: unknown): Appended {
    const { envelope, spill } = sealed
    for (const header of envelope.headers) {
      if (header.ref !== undefined) this.schemas.validate(header.ref, header.value)
    }
    if (envelope.schema !== undefined) {
      // A spilled payload is validated before it leaves memory.
      this.schemas.validate(envelope.schema, spill ? (draft as { payload: unknown }).payload : envelope.payload)
    }
    // Without an await, one append commits atomically anyway; the explicit
    // transaction only keeps a spilled blob and its envelope all-or-nothing.
    return spill ? this.storage.transactionSync(() => this.insert(sealed, draft)) : this.insert(sealed, draft)
  }

  /** `appendSealed`'s writes, once validated: the spilled payload, then the row at the next sequence. */
  private insert({ envelope, columns, spill }: Sealed, draft: unknown): Appended {
    if (spill) this.artifacts.put(spill.bytes, 'application/json', spill.hash)
    const seq = this.sequence.next()
    const row: InsertRow = {
      seq,
      id: envelope.id,
      topic: envelope.topic,
      type: envelope.type,
      parent: envelope.parent,
      author: envelope.author,
      time: envelope.time,
      schema: envelope.schema ?? null,
      ...columns,
    }
    const written = this.storage.sql.exec(this.insertSql, ...this.insertOrder.map((name) => row[name]))
    // A spilled payload is handed back as readers see it: present, with its reference.
    const stored: Envelope = spill ? { ...envelope, payload: (draft as { payload: Json }).payload } : envelope
    if (written.rowsWritten > 0) {
      this.sequence.appended(seq)
      return { envelope: { ...stored, seq }, duplicate: false }
    }
    return { envelope: { ...stored, seq: this.seqOfId.get({ id: envelope.id })!.seq }, duplicate: true }
  }

  /** The sequence of the envelope with this id, or `undefined`. */
  seqOf(id: string): number | undefined {
    return this.seqOfId.get({ id })?.seq
  }

  /** The envelope with this id, or `undefined`. */
  get(id: string): Stored | undefined {
    const [row] = this.rows(`select ${LOG_COLUMNS} from log where id = ?`, id)
    return row && this.hydrate(fromLogRow(row))
  }

  /** Whether an envelope with this id is stored (its payload is not read). */
  has(id: string): boolean {
    return this.seqOfId.get({ id }) !== undefined
  }

  /** The last sequence written, 0 for an empty log (read from the log). */
  head(): number {
    return this.sequence.head()
  }

  /** The newest envelope of a topic, or `undefined`. */
  latest(topic: string): Stored | undefined {
    const [row] = this.rows(`select ${LOG_COLUMNS} from log where topic = ? order by seq desc limit 1`, topic)
    return row && this.hydrate(fromLogRow(row))
  }

  /** How many envelopes of a topic are stamped at or after `time`. */
  countSince(topic: string, time: number): number {
    const [row] = this.db.select({ n: sql<number>`count(*)` }).from(log).where(and(eq(log.topic, topic), gte(log.time, time))).all()
    return row?.n ?? 0
  }

  /** Query verb 1: envelopes of one topic after a sequence. */
  byTopic(topic: string, options: PageOptions = {}): Page {
    return this.bySeq('topic = ?', [topic], options)
  }

  /**
   * Query verb 1, newest first: envelopes of one topic before a sequence (none: from the newest);
   * `next` is the cursor to pass as `before`.
   */
  byTopicNewest(topic: string, options: { before?: number | undefined; limit?: number | undefined } = {}): Page {
    const limit = clampLimit(options.limit)
    const rows = this.rows(`select ${LOG_COLUMNS} from log where topic = ? and seq < ? order by seq desc limit ?`, topic, options.before ?? Number.MAX_SAFE_INTEGER, limit + 1)
    return this.pageOf(rows, limit, (item) => item.seq)
  }

  /** Query verb 2: envelopes of one type, across topics. */
  byType(type: string, options: PageOptions = {}): Page {
    return this.bySeq('type = ?', [type], options)
  }

  /** Query verb 3: envelopes whose time is in `[from, to)`, in sequence order. */
  byTime(from: number, to: number, options: PageOptions = {}): Page {
    return this.bySeq('time >= ? and time < ?', [from, to], options)
  }

  /**
   * Query verb 4a: walk causality upward, nearest parent first. `after` is the
   * number of ancestors already read, so a long chain pages like the others.
   */
  ancestors(id: string, options: PageOptions = {}): Page {
    const after = options.after ?? 0
    const limit = clampLimit(options.limit)
    const rows = this.rows(
        `with recursive chain(id, parent, depth) as (
           select id, parent, 0 from log where id = ?
           union all
           select log.id, log.parent, chain.depth + 1 from log join chain on log.id = chain.parent
           where chain.depth < ?
         )
         select ${LOG_COLUMNS} from chain join log on log.id = chain.id
         where chain.depth > ? order by chain.depth limit ?`,
      id,
      after + limit + 1,
      after,
      limit + 1,
    )
    return this.pageOf(rows, limit, (_, i) => after + i + 1)
  }

  /** Query verb 4b: walk causality downward: every envelope descending from `id`, in sequence order. */
  descendants(id: string, options: PageOptions = {}): Page {
    const after = options.after ?? 0
    const limit = clampLimit(options.limit)
    const rows = this.rows(
      `with recursive tree(id) as (
           select id from log where parent = ?
           union
           select log.id from log join tree on log.parent = tree.id
         )
         select ${LOG_COLUMNS} from tree join log on log.id = tree.id
         where log.seq > ? order by log.seq limit ?`,
      id,
      after,
      limit + 1,
    )
    return this.pageOf(rows, limit, (item) => item.seq)
  }

  /**
   * Folds a topic page by page; the only read that builds state. Pass a previous
   * result as `from` to resume after its cursor instead of replaying from zero.
   *
   * @example
   * const { state, cursor } = ledger.fold('session.s1', (n, e) => n + 1, 0)
   */
  fold<S>(topic: string, reducer: (state: S, envelope: Stored) => S, initial: S, from?: Folded<S>): Folded<S> {
    let state = from ? from.state : initial
    let cursor = from ? from.cursor : 0
    for (;;) {
      const { items, next } = this.byTopic(topic, { after: cursor, limit: FOLD_PAGE })
      for (const envelope of items) {
        state = reducer(state, envelope)
        cursor = envelope.seq
      }
      if (next === null) return { state, cursor }
    }
  }

  /**
   * The payload of an envelope, reading it from the artifact store when it spilled.
   * The one place a spilled payload is read back; every read of the ledger goes through it.
   */
  payload(envelope: Envelope): Json | undefined {
    if (!envelope.payloadRef) return envelope.payload
    const bytes = this.artifacts.get(envelope.payloadRef.hash)
    if (!bytes) {
      throw new NeuronError('ARTIFACT_MISSING', `payload ${envelope.payloadRef.ref} of ${envelope.id} is missing`, {
        status: 500,
        details: { id: envelope.id, ref: envelope.payloadRef.ref },
      })
    }
    return JSON.parse(new TextDecoder().decode(bytes)) as Json
  }

  /** The envelope with its payload present, read from the artifact store when it spilled. */
  private hydrate(envelope: Stored): Stored {
    return envelope.payloadRef ? { ...envelope, payload: this.payload(envelope)! } : envelope
  }

  /** A page in sequence order; the statement text is constant per verb, so workerd reuses it. */
  private bySeq(where: string, params: (string | number)[], options: PageOptions): Page {
    const limit = clampLimit(options.limit)
    const rows = this.rows(`select ${LOG_COLUMNS} from log where ${where} and seq > ? order by seq limit ?`, ...params, options.after ?? 0, limit + 1)
    return this.pageOf(rows, limit, (item) => item.seq)
  }

  /**
   * Takes rows from a lazy cursor until the page holds `limit` envelopes or its payloads reach
   * `PAGE_PAYLOAD_BYTES`; only the envelopes kept are read back from the artifact store.
   */
  private pageOf(rows: Iterable<LogRow>, limit: number, cursorOf: (item: Stored, index: number) => number): Page {
    const items: Stored[] = []
    let bytes = 0
    for (const row of rows) {
      const weight = payloadWeight(row)
      if (items.length === limit || (items.length > 0 && bytes + weight > PAGE_PAYLOAD_BYTES)) {
        return { items, next: cursorOf(items[items.length - 1]!, items.length - 1) }
      }
      bytes += weight
      items.push(this.hydrate(fromLogRow(row)))
    }
    return { items, next: null }
  }

  /** A lazy cursor over `select ${LOG_COLUMNS} …` rows, as arrays. */
  private rows(query: string, ...params: (string | number)[]): IterableIterator<LogRow> {
    return this.storage.sql.exec(query, ...params).raw() as IterableIterator<LogRow>
  }
}

/** The answer for an envelope id that is not stored (or is not an id at all). */
export function envelopeNotFound(id: string): NeuronError {
  return new NeuronError('NOT_FOUND', `no envelope ${id}`, { status: 404, details: { id } })
}

/** drizzle wraps each placeholder in a `Param`; its name says which value binds there. */
function placeholderName(param: unknown): keyof InsertRow {
  const p = param as { name?: string; value?: { name?: string } }
  const name = p.name ?? p.value?.name
  if (!name) throw new Error('ledger: unexpected drizzle parameter shape in the insert statement')
  return name as keyof InsertRow
}

/** A page size given by a caller, checked against `MAX_PAGE` (default 100); `INVALID_LIMIT` otherwise. */
export function clampLimit(limit: number | undefined): number {
  if (limit === undefined) return 100
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new NeuronError('INVALID_LIMIT', `limit must be an integer in [1, ${MAX_PAGE}]`, { details: { limit } })
  }
  return limit
}

/**
 * Cuts `limit + 1` fetched items to a page: the extra item only says there is more.
 *
 * @example
 * cutPage(rows, 100, (row) => row.seq) // { items: rows.slice(0, 100), next: rows[99].seq } when 101 came back
 */
export function cutPage<T>(items: T[], limit: number, cursorOf: (item: T, index: number) => number): { items: T[]; next: number | null } {
  if (items.length <= limit) return { items, next: null }
  const kept = items.slice(0, limit)
  return { items: kept, next: cursorOf(kept[limit - 1]!, limit - 1) }
}
