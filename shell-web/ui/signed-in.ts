/**
 * Who the shell is signed in as, for the views that read the API (orchestrations, memory): the
 * typed client while signed in, undefined signed out, and a call to each watcher on every change.
 * The agent panel owns the sign-in; main.ts sets this from its hooks.
 *
 * @example
 * const signedIn = new SignedIn()
 * signedIn.watch((client) => render(client))
 * signedIn.set(connection.client)
 */
import type { NeuronClient } from '../../client/index.ts'

export class SignedIn {
  #client: NeuronClient | undefined
  readonly #watchers = new Set<(client: NeuronClient | undefined) => void>()

  get client(): NeuronClient | undefined {
    return this.#client
  }

  set(client: NeuronClient | undefined): void {
    this.#client = client
    for (const watcher of this.#watchers) watcher(client)
  }

  /** Calls `watcher` on every change; returns the unsubscribe. */
  watch(watcher: (client: NeuronClient | undefined) => void): () => void {
    this.#watchers.add(watcher)
    return () => this.#watchers.delete(watcher)
  }
}

/** What the shell gives each view it mounts: the sign-in, and how to open a session in the conversation view. */
export interface ViewDeps {
  signedIn: SignedIn
  openSession(id: string): void
}
