/**
 * The permission requests of the session the agent panel shows, as a fold over its frames: a
 * `permission.requested` event opens a request, `permission.answered` (on any surface: this panel,
 * HTTP, the CLI, MCP) and `permission.expired` settle it, and the end of its call settles one still
 * pending as cancelled, as the session's own fold does (`SessionState.asks`). The panel's socket
 * replays the session's history from the start, so after a reload the requests still waiting are
 * rebuilt from the events, never kept in memory. Events count once each, by sequence, so a
 * reconnect's replay changes nothing. Bounded: every pending request (the server parks at most the
 * calls of one step) and the newest settled ones. A view that replays only the newest events seeds
 * the requests still waiting from the API (`seed`).
 *
 * @example
 * const requests = new PermissionRequests()
 * for await (const frame of socket.frames()) if (requests.apply(frame)) render(requests.list())
 */
import { EVENT, isSessionEvent, type PendingPermission, type SessionFrame } from '../../client/index.ts'

/** How a request ended, or that it waits. */
export type RequestState = 'pending' | 'once' | 'always' | 'reject' | 'expired' | 'cancelled'

/** A request as the surfaces list it (`PendingPermission`: tool, subjects, input, reason, …) and how it stands. */
export interface PermissionCard extends PendingPermission {
  /** The call is keyed by its step and id: a provider's call ids are unique within a step only. */
  key: string
  state: RequestState
  /** Who answered, and why (a reject's reason reaches the model). */
  by?: string
  why?: string
  /** The rules an "always" answer added to the session's config. */
  rules?: unknown[]
}

/** Settled requests kept for the panel to show how they ended. */
const MAX_SETTLED = 20

export class PermissionRequests {
  /** The last durable sequence folded in. */
  last = 0
  #cards = new Map<string, PermissionCard>()

  /** Folds one frame in; true when a request changed. */
  apply(frame: SessionFrame): boolean {
    if (frame.kind !== 'event') return false
    const event = frame.envelope
    if (event.seq <= this.last) return false
    this.last = event.seq
    if (!isSessionEvent(event)) return false
    switch (event.type) {
      case EVENT.permissionRequested: {
        const p = event.payload
        const key = `${p.step}:${p.toolCallId}`
        this.#cards.delete(key)
        this.#cards.set(key, { key, step: p.step, toolCallId: p.toolCallId, tool: p.tool, source: p.source, subjects: p.subjects, input: p.input, reason: p.reason, expiresAt: p.expiresAt, state: 'pending' })
        return this.#bound(), true
      }
      case EVENT.permissionAnswered: {
        const p = event.payload
        return this.#settle(`${p.step}:${p.toolCallId}`, { state: p.reply, by: p.by, ...(p.reason ? { why: p.reason } : {}), ...(p.rules ? { rules: p.rules } : {}) })
      }
      case EVENT.permissionExpired:
        return this.#settle(`${event.payload.step}:${event.payload.toolCallId}`, { state: 'expired' })
      case EVENT.toolSucceeded:
      case EVENT.toolFailed:
      case EVENT.toolCancelled:
        return this.#settle(`${event.payload.step}:${event.payload.toolCallId}`, { state: 'cancelled' })
      default:
        return false
    }
  }

  /**
   * The requests the session says still wait (`GET …/permissions`), for a view whose socket starts
   * after their events: each becomes a pending card unless one is kept; their answers still settle them.
   */
  seed(pending: PendingPermission[]): void {
    for (const p of pending) {
      const key = `${p.step}:${p.toolCallId}`
      if (!this.#cards.has(key)) this.#cards.set(key, { ...p, key, state: 'pending' })
    }
  }

  /** Every request kept, oldest first. */
  list(): PermissionCard[] {
    return [...this.#cards.values()]
  }

  /** The requests still waiting for an answer. */
  pending(): PermissionCard[] {
    return this.list().filter((card) => card.state === 'pending')
  }

  /** Settles a request still pending (an answer after its end changes nothing). */
  #settle(key: string, outcome: Partial<PermissionCard>): boolean {
    const card = this.#cards.get(key)
    if (!card || card.state !== 'pending') return false
    Object.assign(card, outcome)
    this.#bound()
    return true
  }

  #bound() {
    const settled = this.list().filter((card) => card.state !== 'pending')
    for (const gone of settled.slice(0, Math.max(0, settled.length - MAX_SETTLED))) this.#cards.delete(gone.key)
  }
}
