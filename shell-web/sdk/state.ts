/**
 * State invalidation: a same-app "something changed at revision N" signal.
 * It carries no state and grants nothing; listeners re-fetch. The kernel
 * derives the app from the sender's port and forwards `{ topic, revision }`
 * only to that app's other live endpoints.
 *
 * @example
 * const view = followAppState('notes', {
 *   load: () => callTool({ target: 'app:notes:background', name: 'notes_list', arguments: {} }),
 *   apply: (snapshot) => render(snapshot),
 * })
 */
import type { Transport } from './transport.ts'
import type { StateChange } from './types.ts'
import { isRecord } from '../protocol/envelope.ts'

export class StateChanges {
  #listeners = new Map<string, Set<(change: StateChange) => void>>()
  #seen = new Map<string, number>()

  constructor(private readonly transport: Transport) {
    transport.on('event', (msg) => {
      const event = isRecord(msg.payload) ? msg.payload : {}
      const change = isRecord(event.payload) ? event.payload : {}
      if (event.action !== 'app.state.changed' || typeof change.topic !== 'string' || typeof change.revision !== 'number') return
      this.#deliver({ topic: change.topic, revision: change.revision })
    })
  }

  publish(topic: string, revision: number): Promise<void> {
    return this.transport.request('app.state.publish', { topic, revision }).then(() => undefined)
  }

  /** Listens for newer revisions of `topic`; older or repeated ones are ignored. */
  on(topic: string, listener: (change: StateChange) => void): () => void {
    let set = this.#listeners.get(topic)
    if (!set) this.#listeners.set(topic, (set = new Set()))
    set.add(listener)
    return () => set.delete(listener)
  }

  #deliver(change: StateChange) {
    if (change.revision <= (this.#seen.get(change.topic) ?? -1)) return
    this.#seen.set(change.topic, change.revision)
    for (const listener of this.#listeners.get(change.topic) ?? []) {
      try {
        listener(change)
      } catch (error) {
        console.warn('onAppStateChange listener threw', error)
      }
    }
  }
}

/**
 * Keeps a view in step with a topic: a full snapshot on start (retried with
 * backoff until it succeeds — at startup the owning endpoint may not be live
 * yet), a re-fetch on every newer revision, an optional slow poll as recovery
 * for dropped events, and never an older snapshot over a newer one (slow
 * responses that resolve out of order are dropped).
 */
export function follow<S extends { revision: number }>(
  changes: StateChanges,
  topic: string,
  view: { load(): Promise<S>; apply(snapshot: S): void; onError?(error: unknown): void; pollMs?: number },
): { refresh(): Promise<void>; stop(): void } {
  let applied = -1
  let stopped = false
  let retry: ReturnType<typeof setTimeout> | undefined
  let backoff = 100
  const refresh = async (): Promise<void> => {
    try {
      const snapshot = await view.load()
      backoff = 100
      if (stopped || snapshot.revision <= applied) return
      applied = snapshot.revision
      view.apply(snapshot)
    } catch (error) {
      if (stopped) return
      view.onError?.(error)
      clearTimeout(retry)
      retry = setTimeout(() => void refresh(), backoff)
      backoff = Math.min(backoff * 2, 5_000)
    }
  }
  const off = changes.on(topic, ({ revision }) => {
    if (revision > applied) void refresh()
  })
  const poll = view.pollMs ? setInterval(() => void refresh(), view.pollMs) : undefined
  void refresh()
  return {
    refresh,
    stop() {
      stopped = true
      off()
      clearTimeout(retry)
      clearInterval(poll)
    },
  }
}
