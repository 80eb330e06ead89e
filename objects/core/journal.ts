/**
 * The journal: what every Durable Object with a log is built from. One ledger over the object's
 * storage, one bus that holds the object's topics (so their envelopes are stored before any
 * subscriber sees them), the fold of the object's state over its topic, one `record` that appends
 * with the causal parent and folds, and a snapshot hook for an object whose fold would otherwise
 * replay its whole history on every wake. State is a fold over append-only history: `record` is
 * the one way an event enters it, and the state it answers is what the log folds to.
 *
 * The smaller parts, for a log that needs less: `TopicFold`, a fold of one topic caught up from its
 * cursor on each read, for a topic some other write path appends to (an app's grants, a shelf's
 * installs); a bare `Ledger` for an object that only appends and reads points or pages (a graph, a
 * config, the directory, a standalone ledger); `Chain` (ledger/chain.ts) for a causal chain with no
 * fold (a session's denials).
 *
 * A journal does not migrate: its object runs its migrations inside `blockConcurrencyWhile`, then
 * calls `restore()` when its state must be current before the first request (a session, an
 * orchestration); an object that only reads its fold on demand (the meter) lets the first read
 * restore it.
 */
import { Bus } from '../ledger/bus.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Header } from '../ledger/headers.ts'
import { type Folded, Ledger } from '../ledger/ledger.ts'

/** One step of a fold: the state after `envelope`. */
export type Reducer<S> = (state: S, envelope: Stored) => S

/**
 * A memo of the fold kept across wakes, never a truth of its own: a missing or stale snapshot
 * only means a fold from the start (objects/session/events/snapshot.ts).
 */
export interface Snapshots<S> {
  /** The stored state and the sequence it covers, or undefined to fold from the start. */
  load(): Folded<S> | undefined
  /** After a fold from the start (`rebuilt`) and after each recorded event: stores the state when due. */
  keep(state: S, rebuilt: boolean): void
  /** The reducer a fold from the start runs instead of the journal's (to rebuild an index as it goes). */
  replay?: Reducer<S>
}

export interface JournalOptions<S> {
  storage: DurableObjectStorage
  /** The topic the state folds over, and the one `record` appends to. */
  topic: string
  /** The author stamped on what the journal records. */
  author: string
  /** Address patterns held besides `topic` (e.g. its sub-addresses), stored before delivery too. */
  holds?: string[]
  reduce: Reducer<S>
  initial: () => S
  /**
   * The causal parent of the next event, read from the state (an object whose state keeps its last
   * event's id). Without it the topic is a chain: each event's parent is the last one recorded.
   */
  parent?: (state: S) => string | null
  snapshots?: Snapshots<S>
}

/**
 * @example
 * const journal = new Journal({ storage: ctx.storage, topic: 'orchestration.o1', author: 'object:orchestration', reduce, initial, parent: (s) => s.lastId })
 * void ctx.blockConcurrencyWhile(async () => { migrate(ctx.storage, TABLES); journal.restore() })
 * journal.bus.subscribe(on(journal.topic), (envelope) => broadcast(envelope))
 * journal.record('orchestration.created', { goal }, headers) // stored, folded, then delivered
 */
export class Journal<S> {
  readonly ledger: Ledger
  readonly bus: Bus
  readonly topic: string
  private readonly reduce: Reducer<S>
  private readonly initial: () => S
  private readonly parentOf: ((state: S) => string | null) | undefined
  private readonly snapshots: Snapshots<S> | undefined
  /** The fold so far; undefined until restored. */
  private folded: Folded<S> | undefined
  /** Without `parent`: the last id on the topic, read once. */
  private last: string | null | undefined

  constructor(options: JournalOptions<S>) {
    this.ledger = new Ledger(options.storage)
    this.topic = options.topic
    this.reduce = options.reduce
    this.initial = options.initial
    this.parentOf = options.parent
    this.snapshots = options.snapshots
    this.bus = new Bus({ ledger: this.ledger, author: options.author, holds: [options.topic, ...(options.holds ?? [])] })
  }

  /**
   * Folds the state from the stored snapshot (or from the start when there is none), once per wake.
   *
   * @example
   * void ctx.blockConcurrencyWhile(async () => { migrate(ctx.storage, TABLES); journal.restore() })
   */
  restore(): S {
    const snapshot = this.snapshots?.load()
    if (snapshot) {
      this.folded = this.ledger.fold(this.topic, this.reduce, snapshot.state, snapshot)
    } else {
      this.folded = this.ledger.fold(this.topic, this.snapshots?.replay ?? this.reduce, this.initial())
      this.snapshots?.keep(this.folded.state, true)
    }
    return this.folded.state
  }

  /** The state folded over every event of the topic (restored on the first read if it was not yet). */
  get state(): S {
    return (this.folded ?? { state: this.restore() }).state
  }

  /**
   * Records an event: stored on the held topic with its causal parent, folded into the state (and
   * the snapshot kept when due), then delivered to the bus's subscribers.
   *
   * @example
   * const envelope = journal.record('session.prompted', { text: 'hi' }, gateHeaders(caller, decision))
   */
  record(type: string, payload: unknown, headers: Header[] = [], author?: string): Stored {
    const parent = this.parentOf ? this.parentOf(this.state) : (this.last ??= this.ledger.latest(this.topic)?.id ?? null)
    const envelope = this.bus.publish(this.topic, type, payload, { parent, headers, ...(author ? { author } : {}) }) as Stored
    this.last = envelope.id
    // Not restored yet (an object that folds on demand): the first read folds this event from the log.
    if (this.folded) {
      this.folded = { state: this.reduce(this.folded.state, envelope), cursor: envelope.seq }
      this.snapshots?.keep(this.folded.state, false)
    }
    return envelope
  }
}

/**
 * A fold of one topic kept by its cursor and caught up from the log on each read, for a topic
 * appended to outside any journal.
 *
 * @example
 * const grants = new TopicFold(ledger, 'app.grants', foldGrants, () => new Map())
 * grants.current().has('https://api.example')
 */
export class TopicFold<S> {
  private folded: Folded<S> | undefined

  constructor(
    private readonly ledger: Ledger,
    readonly topic: string,
    private readonly reduce: Reducer<S>,
    private readonly initial: () => S,
  ) {}

  /** The state over every envelope of the topic now: only those after the cursor are read. */
  current(): S {
    this.folded = this.ledger.fold(this.topic, this.reduce, this.folded ? this.folded.state : this.initial(), this.folded)
    return this.folded.state
  }
}
