/**
 * How many messages one endpoint has waiting for the kernel at once. The trusted page takes port
 * messages from one task queue in arrival order, so an endpoint that posts 20,000 of them (each
 * one cheap, each one allowed) makes every other app's message wait behind all of them. The page
 * cannot see a port's queue, but it can measure it: on an endpoint's message, when none is being
 * measured, a probe goes through the page's own task queue; the endpoint's messages handled before
 * the probe comes back were waiting at once. Past `LIMITS.maxQueuedPerEndpoint` the endpoint is
 * flooding, whatever its messages are and whether they succeed; closing its port discards the rest.
 * An honest endpoint never comes near: it has at most 8 calls in flight and its SDK holds progress
 * back at the rate, so its queue stays at a few dozen.
 *
 * @example
 * const backlog = new Backlog((done) => probe(done))
 * port.onmessage = (event) => { if (!backlog.take(ep)) return disconnect(ep); handle(event) }
 */
import { LIMITS } from '../../protocol/limits.ts'

export class Backlog<K = unknown> {
  #counting = new Map<K, number>()

  constructor(
    /** Calls `done` once everything queued on the page before now has run. */
    private readonly probe: (done: () => void) => void,
    readonly limit: number = LIMITS.maxQueuedPerEndpoint,
  ) {}

  /** Counts one message of `key`; false once more than `limit` of them were waiting at once. */
  take(key: K): boolean {
    const counted = this.#counting.get(key)
    if (counted === undefined) {
      this.#counting.set(key, 1)
      this.probe(() => this.#counting.delete(key))
      return true
    }
    this.#counting.set(key, counted + 1)
    return counted + 1 <= this.limit
  }

  /** `key` went away (its counting ends with it). */
  forget(key: K): void {
    this.#counting.delete(key)
  }
}

/**
 * A probe through the page's own message queue (a MessageChannel of the kernel's, the same task
 * source the app ports' messages wait in).
 *
 * @example
 * const backlog = new Backlog(queueProbe())
 */
export function queueProbe(): (done: () => void) => void {
  const channel = new MessageChannel()
  const waiting = new Map<number, () => void>()
  let next = 0
  channel.port1.onmessage = (event) => {
    const id = event.data as number
    waiting.get(id)?.()
    waiting.delete(id)
  }
  return (done) => {
    const id = next++
    waiting.set(id, done)
    channel.port2.postMessage(id)
  }
}
