/**
 * What an app backend sees of its installation's state: an RPC target the
 * kernel passes to each call as its second argument. A query gets `ReadState`
 * (`get` only); an update gets `WriteState` (`get` and `put`). The read-only
 * rule is the shape of the object handed over, not a flag checked later: a
 * query's `state.put` does not exist on the other side.
 *
 * State is a fold over the installation's ledger: `put` appends an
 * `app.state.put` envelope on topic `state.<key>`, `get` reads the latest one.
 * Nothing is updated in place, and every past value stays in the history.
 */
import { RpcTarget } from 'cloudflare:workers'
import { NeuronError } from '../errors.ts'
import { assertJson, canonicalJson, type Json, utf8Length } from '../ledger/json.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { MAX_CALL_BYTES } from '../limits.ts'

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

/** Read and append access for an update; `author` is the person the installation belongs to. */
export class WriteState extends RpcTarget {
  constructor(
    private readonly ledger: Ledger,
    private readonly author: string,
  ) {
    super()
  }

  get(key: string): Json | null {
    return readValue(this.ledger, key)
  }

  /**
   * Appends `value` as the new value of `key`.
   *
   * @example
   * await state.put('count', count + 1)
   */
  put(key: string, value: unknown): void {
    const topic = topicOf(key)
    assertJson(value)
    const bytes = utf8Length(canonicalJson(value))
    if (bytes > MAX_CALL_BYTES) throw new NeuronError('STATE_VALUE_TOO_LARGE', `a state value is at most ${MAX_CALL_BYTES} bytes; this one is ${bytes}`, { status: 413 })
    this.ledger.append({ topic, type: 'app.state.put', author: this.author, payload: { key, value } })
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
