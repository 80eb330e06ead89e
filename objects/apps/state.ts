/**
 * What an app backend sees of its installation's state: an RPC target the
 * kernel passes to each call as its second argument. A query gets `ReadState`
 * (`get` only); an update gets `WriteState` (`get` and `put`). The read-only
 * rule is the shape of the object handed over, not a flag checked later: a
 * query's `state.put` does not exist on the other side.
 *
 * State is a fold over the installation's ledger: an `app.state.put` envelope
 * on topic `state.<key>` per value, `get` reads the latest one. Nothing is
 * updated in place, and every past value stays in the history.
 *
 * An update is all or nothing: its `put`s are staged (its own `get`s see them)
 * and appended together, in one synchronous step, only when the method has
 * answered in time with a valid output. A method that throws, times out or
 * answers wrongly leaves no trace in the state, and a `put` arriving after its
 * call ended is refused. Committing is the kernel's alone: `openUpdate` gives
 * the kernel `commit` and `discard` and the backend a `WriteState` whose only
 * methods are `get` and `put` (an RPC target exposes every method of its
 * class, so the staging lives in a plain object the backend never receives).
 */
import { RpcTarget } from 'cloudflare:workers'
import { NeuronError } from '../core/errors.ts'
import { assertJson, canonicalJson, type Json, utf8Length } from '../ledger/json.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { MAX_CALL_BYTES, MAX_UPDATE_WRITE_BYTES } from '../core/limits.ts'

const KEY = /^[A-Za-z0-9_:-]{1,128}$/

/** Read access for a query. */
export class ReadState extends RpcTarget {
  constructor(protected readonly ledger: Ledger) {
    super()
  }

  /**
   * The latest value stored under `key`, or null.
   *
   * @example
   * const count = (await state.get('count')) ?? 0
   */
  get(key: string): Json | null {
    return readValue(this.ledger, key)
  }
}

/** One update as the kernel holds it: the state to hand to the backend, and the two ways to end it. */
export interface Update {
  /** What the backend receives: `get` and `put`, nothing else. */
  readonly state: WriteState
  /** Appends every staged value (in the order first staged), then ends the update. */
  commit(): void
  /** Ends the update without storing anything (it threw, timed out or answered wrongly). */
  discard(): void
}

/**
 * Opens an update of `ledger`'s state for `author`, the person the installation belongs to.
 *
 * @example
 * const update = openUpdate(ledger, person)
 * await backend.invoke('increment', input, update.state)
 * update.commit()
 */
export function openUpdate(ledger: Ledger, author: string): Update {
  const staging = new Staging(ledger, author)
  return { state: new WriteState(staging), commit: () => staging.commit(), discard: () => staging.discard() }
}

/** Read and staged-write access for an update: what the backend's `state` is. */
export class WriteState extends RpcTarget {
  readonly #staging: Staging

  constructor(staging: Staging) {
    super()
    this.#staging = staging
  }

  get(key: string): Json | null {
    return this.#staging.get(key)
  }

  /**
   * Stages `value` as the new value of `key`; it is stored when the update answers.
   *
   * @example
   * await state.put('count', count + 1)
   */
  put(key: string, value: unknown): void {
    this.#staging.put(key, value)
  }
}

/** The staged writes of one update (never handed to a backend). */
class Staging {
  #staged = new Map<string, { value: Json; bytes: number }>()
  #bytes = 0
  #ended = false

  constructor(
    private readonly ledger: Ledger,
    private readonly author: string,
  ) {}

  get(key: string): Json | null {
    const staged = this.#staged.get(key)
    if (staged) return staged.value
    return readValue(this.ledger, key)
  }

  put(key: string, value: unknown): void {
    topicOf(key)
    if (this.#ended) throw new NeuronError('CALL_ENDED', 'this update has already ended; nothing more can be written for it', { status: 409 })
    assertJson(value)
    const bytes = utf8Length(canonicalJson(value))
    if (bytes > MAX_CALL_BYTES) throw new NeuronError('STATE_VALUE_TOO_LARGE', `a state value is at most ${MAX_CALL_BYTES} bytes; this one is ${bytes}`, { status: 413 })
    const total = this.#bytes - (this.#staged.get(key)?.bytes ?? 0) + bytes
    if (total > MAX_UPDATE_WRITE_BYTES) throw new NeuronError('UPDATE_TOO_LARGE', `one update writes at most ${MAX_UPDATE_WRITE_BYTES} bytes of state`, { status: 413 })
    this.#staged.set(key, { value: value as Json, bytes })
    this.#bytes = total
  }

  commit(): void {
    this.#ended = true
    for (const [key, { value }] of this.#staged) {
      this.ledger.append({ topic: topicOf(key), type: 'app.state.put', author: this.author, payload: { key, value } })
    }
    this.#staged.clear()
  }

  discard(): void {
    this.#ended = true
    this.#staged.clear()
  }
}

function readValue(ledger: Ledger, key: string): Json | null {
  const latest = ledger.latest(topicOf(key))
  if (!latest) return null
  return ((ledger.payload(latest) as { value: Json } | undefined)?.value ?? null) as Json | null
}

function topicOf(key: string): string {
  if (typeof key !== 'string' || !KEY.test(key)) throw new NeuronError('INVALID_STATE_KEY', 'a state key is 1–128 of [A-Za-z0-9_:-]', { status: 400 })
  return `state.${key}`
}
