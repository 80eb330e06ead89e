/**
 * Agent Mode's state on the trusted page: which exact app version and
 * entrypoint the owner has enabled for an agent, and the one consent dialog
 * that may be waiting for the owner. Enabling happens only through the
 * owner's answer in the trusted page's dialog; disabling (by the owner, by the
 * app, by an app change or by signing out) tells every listener, which ends
 * the invocations that ran under it.
 *
 * @example
 * const mode = new AgentMode()
 * const answer = mode.ask({ app: 'notes', version: '1.0.0', title: 'Notes', entrypoint: 'notes_search', endpoint: tileId })
 * mode.decide(mode.pending()!.id, 'allow') // answer resolves to 'allow'; notes_search is enabled
 * mode.disable('notes')                     // listeners hear which entrypoints ended
 */
import { type AgentLimits, defaultAgentLimits } from './agent-policy.ts'

export interface EnabledEntrypoint {
  app: string
  version: string
  entrypoint: string
  at: number
}

export interface ConsentRequest {
  id: number
  app: string
  version: string
  /** The app's own title: untrusted, shown as such. */
  title: string
  entrypoint: string
  /** The tile that asked; the dialog is withdrawn if it goes away. */
  endpoint: string
  at: number
}

export type ConsentAnswer = 'allow' | 'deny' | 'timeout' | 'withdrawn'

export class AgentMode {
  /** The bounds in force; the trusted page may tighten them (tests shorten the timeout). */
  readonly limits: AgentLimits = defaultAgentLimits()
  #enabled = new Map<string, EnabledEntrypoint>()
  #pending?: ConsentRequest & { settle(answer: ConsentAnswer): void }
  #consents = new Map<string, number[]>()
  #nextId = 1
  #listeners = new Set<() => void>()
  #revoked = new Set<(ended: EnabledEntrypoint[], reason: string) => void>()

  /** Entrypoints enabled now, optionally of one app. */
  enabled(app?: string): EnabledEntrypoint[] {
    return [...this.#enabled.values()].filter((e) => app === undefined || e.app === app)
  }

  /** The enabled entrypoint named `tool`, if any (names the agent sees are entrypoint names). */
  find(tool: string): EnabledEntrypoint | undefined {
    return [...this.#enabled.values()].find((e) => e.entrypoint === tool)
  }

  isEnabled(app: string, version: string, entrypoint: string): boolean {
    const e = this.#enabled.get(key(app, entrypoint))
    return !!e && e.version === version
  }

  pending(): ConsentRequest | undefined {
    if (!this.#pending) return undefined
    const { settle: _, ...request } = this.#pending
    return request
  }

  /** Consent dialogs `app` opened within the window (for AGENT_CONSENT_LIMIT). */
  recentConsents(app: string, now = Date.now()): number {
    const recent = (this.#consents.get(app) ?? []).filter((t) => now - t < this.limits.consentWindowMs)
    this.#consents.set(app, recent)
    return recent.length
  }

  /**
   * Opens the consent dialog (the caller has decided it may) and resolves with the owner's answer,
   * 'timeout' after `limits.consentTimeoutMs`, or 'withdrawn' when the asking endpoint goes away.
   * 'allow' enables the entrypoint before resolving.
   */
  ask(request: Omit<ConsentRequest, 'id' | 'at'>): Promise<ConsentAnswer> {
    if (this.#pending) throw new Error('a consent dialog is already open')
    const at = Date.now()
    this.#consents.set(request.app, [...(this.#consents.get(request.app) ?? []), at])
    return new Promise((resolve) => {
      const settle = (answer: ConsentAnswer) => {
        if (this.#pending?.id !== pending.id) return
        this.#pending = undefined
        clearTimeout(timer)
        if (answer === 'allow') this.#enabled.set(key(request.app, request.entrypoint), { app: request.app, version: request.version, entrypoint: request.entrypoint, at: Date.now() })
        this.#changed()
        resolve(answer)
      }
      const pending = { ...request, id: this.#nextId++, at, settle }
      const timer = setTimeout(() => settle('timeout'), this.limits.consentTimeoutMs)
      this.#pending = pending
      this.#changed()
    })
  }

  /** The owner's answer to dialog `id` (drawn by the trusted page only). */
  decide(id: number, answer: 'allow' | 'deny'): void {
    if (this.#pending?.id === id) this.#pending.settle(answer)
  }

  /** An endpoint went away: a dialog it opened is withdrawn. */
  endpointGone(endpoint: string): void {
    if (this.#pending?.endpoint === endpoint) this.#pending.settle('withdrawn')
  }

  /** Ends `app`'s enabled entrypoints (one, or all); returns what ended. */
  disable(app: string, entrypoint?: string, reason = 'disabled'): EnabledEntrypoint[] {
    return this.#end((e) => e.app === app && (entrypoint === undefined || e.entrypoint === entrypoint), reason)
  }

  /** The app was removed or replaced: its consent does not carry over to another version. */
  appChanged(app: string): void {
    if (this.#pending?.app === app) this.#pending.settle('withdrawn')
    this.disable(app, undefined, 'the app changed')
  }

  /** Sign-out: everything ends, the dialog closes. */
  clear(reason = 'signed out'): void {
    this.#pending?.settle('withdrawn')
    this.#end(() => true, reason)
  }

  /** Called with the entrypoints that ended (the kernel ends their invocations). */
  onRevoked(listener: (ended: EnabledEntrypoint[], reason: string) => void): void {
    this.#revoked.add(listener)
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #end(match: (e: EnabledEntrypoint) => boolean, reason: string): EnabledEntrypoint[] {
    const ended = [...this.#enabled.values()].filter(match)
    if (!ended.length) return ended
    for (const e of ended) this.#enabled.delete(key(e.app, e.entrypoint))
    for (const listener of this.#revoked) listener(ended, reason)
    this.#changed()
    return ended
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}

const key = (app: string, entrypoint: string) => `${app}#${entrypoint}`
