/**
 * The person's consent for app-backend effects, drawn by the trusted page: an update call made on
 * the person's behalf (`canister.call_dialog`) or a persistent outbound grant
 * (`backend_calls.request`). One dialog at a time (a second request is UI_BUSY with a retry
 * hint); a dialog ends with the person's answer, after `backendConsentTimeoutMs`, or when the
 * asking endpoint goes away or its call is cancelled. Nothing here performs the effect: the
 * caller does, and only after 'allow'.
 *
 * @example
 * const consent = new BackendConsent()
 * const answer = consent.ask({ kind: 'call', app: 'counter', title: 'Counter', method: 'increment', summary: '{"by":2}', caller: 'app:notes:tile:t1', callerApp: 'notes' }, signal)
 * consent.decide(consent.pending()!.id, 'allow') // answer resolves to 'allow'
 */
import { LIMITS } from '../../protocol/limits.ts'

export type ConsentSubject =
  | { kind: 'call'; app: string; title: string; method: string; summary: string }
  | { kind: 'origin'; app: string; title: string; origin: string }

export type BackendConsentRequest = ConsentSubject & {
  id: number
  /** The endpoint that asked; the dialog is withdrawn if it goes away. */
  caller: string
  callerApp: string
  at: number
}

export type BackendConsentAnswer = 'allow' | 'deny' | 'timeout' | 'withdrawn'

export class BackendConsent {
  timeoutMs: number = LIMITS.backendConsentTimeoutMs
  #pending?: BackendConsentRequest & { settle(answer: BackendConsentAnswer): void }
  #nextId = 1
  #listeners = new Set<() => void>()

  pending(): BackendConsentRequest | undefined {
    if (!this.#pending) return undefined
    const { settle: _, ...request } = this.#pending
    return request
  }

  /** Opens the dialog; 'busy' when one is open already (the caller answers UI_BUSY). */
  ask(subject: ConsentSubject & { caller: string; callerApp: string }, signal: AbortSignal): Promise<BackendConsentAnswer> | 'busy' {
    if (this.#pending) return 'busy'
    return new Promise((resolve) => {
      const settle = (answer: BackendConsentAnswer) => {
        if (this.#pending?.id !== pending.id) return
        this.#pending = undefined
        clearTimeout(timer)
        signal.removeEventListener('abort', withdraw)
        this.#changed()
        resolve(answer)
      }
      const withdraw = () => settle('withdrawn')
      const pending = { ...subject, id: this.#nextId++, at: Date.now(), settle }
      const timer = setTimeout(() => settle('timeout'), this.timeoutMs)
      signal.addEventListener('abort', withdraw)
      this.#pending = pending
      this.#changed()
      if (signal.aborted) withdraw()
    })
  }

  /** The person's answer to dialog `id` (drawn by the trusted page only). */
  decide(id: number, answer: 'allow' | 'deny'): void {
    if (this.#pending?.id === id) this.#pending.settle(answer)
  }

  /** An endpoint went away: a dialog it opened is withdrawn. */
  endpointGone(endpoint: string): void {
    if (this.#pending?.caller === endpoint) this.#pending.settle('withdrawn')
  }

  /** Sign-out: the dialog closes. */
  clear(): void {
    this.#pending?.settle('withdrawn')
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}
