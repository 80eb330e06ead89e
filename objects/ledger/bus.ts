/**
 * The bus (spec §1.1, §1.3): a dumb wire with four verbs. Routing, scoping and
 * fan-out are consequences of predicate matching, not registries.
 *
 * Durable means held: when some holder keeps a reference to an address pattern,
 * envelopes on matching addresses are written to the ledger *before* any
 * handler sees them. Everything else is air: delivered to current listeners,
 * then gone.
 */
import { matchAddress } from './address.ts'
import { type Envelope, type EnvelopeDraft, seal, type Stored } from './envelope.ts'
import type { Header } from './headers.ts'
import type { Ledger } from './ledger.ts'

/** What a subscriber receives: a stored envelope (with `seq`) when durable, a sealed one when air. */
export type Delivered = Envelope | Stored

export type Match = (envelope: Delivered) => boolean
export type Handler = (envelope: Delivered) => void | Promise<void>
type Subscriber = { match: Match; handler: Handler }

/** Per-message extras; the four verbs keep the spec's `(topic, type, payload?)` shape. */
export interface SendOptions {
  parent?: string | null
  author?: string
  headers?: Header[]
  schema?: string
}

export interface BusOptions {
  ledger: Ledger
  /** Author stamped on envelopes sent without one. */
  author: string
  /** Address patterns held from construction, e.g. `['session.*']`. */
  holds?: string[]
}

/**
 * @example
 * const bus = new Bus({ ledger, author: 'object:seed', holds: ['conversation.*'] })
 * bus.subscribe(on('conversation.*'), (e) => console.log(e.type))
 * bus.publish('conversation.c1', 'note', { text: 'hi' }) // stored, then delivered
 */
export class Bus {
  private readonly ledger: Ledger
  private readonly author: string
  private readonly holds: string[] = []
  private readonly subscribers = new Set<Subscriber>()

  constructor(options: BusOptions) {
    this.ledger = options.ledger
    this.author = options.author
    for (const pattern of options.holds ?? []) this.holds.push(pattern)
  }

  /** Hold an address pattern: its envelopes become durable until the returned release is called. */
  hold(pattern: string): () => void {
    this.holds.push(pattern)
    return () => {
      const index = this.holds.indexOf(pattern)
      if (index >= 0) this.holds.splice(index, 1)
    }
  }

  /** Whether envelopes on `topic` are written to the ledger. */
  isDurable(topic: string): boolean {
    return this.holds.some((pattern) => matchAddress(pattern, topic))
  }

  /**
   * Fire-and-forget. Durable envelopes are stored before this returns; handlers
   * run afterwards, and a failing handler is reported, never thrown at the sender.
   */
  publish(topic: string, type: string, payload?: unknown, options: SendOptions = {}): Delivered {
    const envelope = this.record(topic, type, payload, options)
    const targets = [...this.subscribers]
    queueMicrotask(() => {
      this.deliver(envelope, targets).catch((error) => console.error('bus: a handler failed', { topic, type, error }))
    })
    return envelope
  }

  /** Like `publish`, but resolves once every matching handler has settled; rejects if any failed. */
  async emit(topic: string, type: string, payload?: unknown, options: SendOptions = {}): Promise<Delivered> {
    const envelope = this.record(topic, type, payload, options)
    await this.deliver(envelope, [...this.subscribers])
    return envelope
  }

  /** Calls `handler` for every later envelope `match` accepts; returns the unsubscribe function. */
  subscribe(match: Match, handler: Handler): () => void {
    const subscriber = { match, handler }
    this.subscribers.add(subscriber)
    return () => this.subscribers.delete(subscriber)
  }

  /** The next envelope `match` accepts. Rejects with the signal's reason when aborted first. */
  next(match: Match, signal?: AbortSignal): Promise<Delivered> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = () => {
        unsubscribe()
        reject(signal!.reason)
      }
      const unsubscribe = this.subscribe(match, (envelope) => {
        unsubscribe()
        signal?.removeEventListener('abort', onAbort)
        resolve(envelope)
      })
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  private record(topic: string, type: string, payload: unknown, options: SendOptions): Delivered {
    const draft: EnvelopeDraft = {
      topic,
      type,
      author: options.author ?? this.author,
      parent: options.parent ?? null,
      headers: options.headers ?? [],
    }
    if (payload !== undefined) draft.payload = payload
    if (options.schema !== undefined) draft.schema = options.schema
    if (this.isDurable(topic)) return this.ledger.append(draft).envelope
    return seal(draft).envelope
  }

  /** Delivers to the subscribers present when the envelope was sent, skipping any that left since. */
  private async deliver(envelope: Delivered, targets: Subscriber[]): Promise<void> {
    const failures: unknown[] = []
    const runs: Promise<void>[] = []
    for (const subscriber of targets) {
      const { match, handler } = subscriber
      if (!this.subscribers.has(subscriber) || !match(envelope)) continue
      runs.push(
        (async () => {
          try {
            await handler(envelope)
          } catch (error) {
            failures.push(error)
          }
        })(),
      )
    }
    await Promise.all(runs)
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} bus handler(s) failed on ${envelope.type}`)
  }
}

/**
 * A predicate on address segments, optionally narrowed to types.
 *
 * @example
 * bus.subscribe(on('session.*', 'prompted'), handler)
 */
export function on(pattern: string, ...types: string[]): Match {
  return (envelope) => matchAddress(pattern, envelope.topic) && (types.length === 0 || types.includes(envelope.type))
}
