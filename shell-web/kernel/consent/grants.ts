/**
 * Grants between apps, and the person's pending decisions. A session grant
 * (source app → target app) lasts until revoked or the shell unloads; a
 * one-call grant is bound to the exact endpoint that asked and is consumed by
 * its next cross-app listing or invocation. Requests wait here until the
 * trusted page's dialog (or the pending-grants panel) decides them.
 *
 * @example
 * const decision = await grants.request({ endpoint: 'app:planner:tile:t2:instance:a', app: 'planner' }, 'notes', 'call', 'find notes', signal)
 * grants.view('app:planner:tile:t2:instance:a', 'planner', 'notes') // { session: false, oneCall: true }
 */
import { LIMITS } from '../../protocol/limits.ts'
import type { GrantView } from '../bus/policy.ts'

export type GrantScope = 'call' | 'session'
export type Decision = 'call' | 'session' | 'deny'

export interface PendingGrant {
  id: number
  endpoint: string
  sourceApp: string
  targetApp: string
  scope: GrantScope
  reason: string
  at: number
}

export interface SessionGrant {
  sourceApp: string
  targetApp: string
}

export class Grants {
  #sessions = new Map<string, SessionGrant>()
  #oneCall = new Map<string, number>()
  #pending = new Map<number, PendingGrant & { settle: (d: Decision | 'withdrawn') => void }>()
  #nextId = 1
  #listeners = new Set<() => void>()

  view(endpoint: string, sourceApp: string, targetApp: string): GrantView {
    return {
      session: this.#sessions.has(`${sourceApp}>${targetApp}`),
      oneCall: (this.#oneCall.get(`${endpoint}>${targetApp}`) ?? 0) > 0,
    }
  }

  /** Uses up one one-call grant of `endpoint` for `targetApp`. */
  consume(endpoint: string, targetApp: string): void {
    const key = `${endpoint}>${targetApp}`
    const left = (this.#oneCall.get(key) ?? 0) - 1
    if (left > 0) this.#oneCall.set(key, left)
    else this.#oneCall.delete(key)
    this.#changed()
  }

  /** Grants directly (the person acting on the trusted page). */
  grant(source: { endpoint: string; app: string }, targetApp: string, scope: GrantScope): void {
    if (scope === 'session') this.#sessions.set(`${source.app}>${targetApp}`, { sourceApp: source.app, targetApp })
    else this.#oneCall.set(`${source.endpoint}>${targetApp}`, 1)
    this.#changed()
  }

  revoke(sourceApp: string, targetApp: string): void {
    this.#sessions.delete(`${sourceApp}>${targetApp}`)
    this.#changed()
  }

  /** Queues a request for the person. Resolves with their decision, or 'withdrawn'. */
  request(
    source: { endpoint: string; app: string },
    targetApp: string,
    scope: GrantScope,
    reason: string,
    signal: AbortSignal,
  ): Promise<Decision | 'withdrawn'> | 'UI_BUSY' {
    if (this.busy(source, targetApp)) return 'UI_BUSY'
    if (signal.aborted) return Promise.resolve('withdrawn')
    const id = this.#nextId++
    return new Promise((resolve) => {
      const settle = (decision: Decision | 'withdrawn') => {
        if (!this.#pending.delete(id)) return
        if (decision === 'call' || decision === 'session') this.grant(source, targetApp, decision)
        else this.#changed()
        resolve(decision)
      }
      this.#pending.set(id, { id, endpoint: source.endpoint, sourceApp: source.app, targetApp, scope, reason, at: Date.now(), settle })
      signal.addEventListener('abort', () => settle('withdrawn'), { once: true })
      this.#changed()
    })
  }

  /** Would a request of `source` for `targetApp` wait too (too many pending, or this one already)? */
  busy(source: { endpoint: string; app: string }, targetApp: string): boolean {
    const mine = [...this.#pending.values()].filter((p) => p.sourceApp === source.app)
    if (mine.length >= LIMITS.maxPendingGrantsPerApp || this.#pending.size >= LIMITS.maxPendingGrants) return true
    return mine.some((p) => p.endpoint === source.endpoint && p.targetApp === targetApp)
  }

  /** The person's answer to pending request `id`. */
  decide(id: number, decision: Decision): void {
    this.#pending.get(id)?.settle(decision)
  }

  pending(): PendingGrant[] {
    return [...this.#pending.values()].map(({ settle: _, ...rest }) => rest)
  }

  sessions(): SessionGrant[] {
    return [...this.#sessions.values()]
  }

  /** An endpoint went away: its one-call grants and pending requests go with it. */
  endpointGone(endpoint: string): void {
    for (const key of [...this.#oneCall.keys()]) if (key.startsWith(`${endpoint}>`)) this.#oneCall.delete(key)
    for (const p of [...this.#pending.values()]) if (p.endpoint === endpoint) p.settle('withdrawn')
    this.#changed()
  }

  /** An app was removed: every grant from or to it goes. */
  appGone(app: string): void {
    for (const [key, g] of [...this.#sessions]) if (g.sourceApp === app || g.targetApp === app) this.#sessions.delete(key)
    for (const key of [...this.#oneCall.keys()]) if (key.startsWith(`app:${app}:`) || key.endsWith(`>${app}`)) this.#oneCall.delete(key)
    for (const p of [...this.#pending.values()]) if (p.sourceApp === app || p.targetApp === app) p.settle('withdrawn')
    this.#changed()
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}
