/**
 * Delegation tokens (pure). A handler that is answering an invocation may ask the kernel for a
 * token that lets exactly one nested call keep the provenance of the invocation's caller: the
 * nested call is then recorded and presented as "origin, via this endpoint". A token is bound to
 * the endpoint that minted it *and* to that endpoint's session (a reloaded document is a new
 * session and cannot use it), is good for one call, expires after 10 s, and at most 4 may be
 * pending per endpoint session and 64 in the whole shell (refused with DELEGATION_LIMIT and
 * `retryAfterMs`, never queued). The clock is passed in, so expiry is testable without waiting.
 *
 * @example
 * const tokens = new Delegations(() => performance.now())
 * const minted = tokens.mint({ endpoint: 'app:relay:background', session: 7 }, { endpoint: tile, app: 'relay' }, parentCall)
 * const used = tokens.redeem(minted.token, { endpoint: 'app:relay:background', session: 7 }) // { origin, parent } once
 */
import { type BusErrorShape, fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** Who holds (and alone may use) a token: an endpoint id and the session of its binding. */
export interface Holder {
  endpoint: string
  session: number
}

/** The endpoint whose provenance a delegated call keeps. */
export interface Origin {
  endpoint: string
  app: string
}

interface Pending {
  holder: Holder
  origin: Origin
  /** The invocation the token was minted under (opaque here); it dies with it. */
  parent: unknown
  expiresAt: number
}

export class Delegations {
  #pending = new Map<string, Pending>()

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly newToken: () => string = () => crypto.randomUUID(),
    readonly perEndpoint: number = LIMITS.maxDelegationsPerEndpoint,
    readonly global: number = LIMITS.maxDelegationsGlobal,
    readonly ttlMs: number = LIMITS.delegationTtlMs,
  ) {}

  /** Mints a token for `holder`, carrying `origin`, under invocation `parent`; or says why not. */
  mint(holder: Holder, origin: Origin, parent: unknown): { token: string; expiresInMs: number } | BusErrorShape {
    this.#prune()
    const mine = [...this.#pending.values()].filter((p) => p.holder.session === holder.session)
    if (mine.length >= this.perEndpoint) {
      return fail('DELEGATION_LIMIT', `at most ${this.perEndpoint} delegation tokens pending per endpoint`, this.#retryAfter(mine))
    }
    if (this.#pending.size >= this.global) {
      return fail('DELEGATION_LIMIT', `at most ${this.global} delegation tokens pending in the shell`, this.#retryAfter([...this.#pending.values()]))
    }
    const token = this.newToken()
    this.#pending.set(token, { holder, origin, parent, expiresAt: this.now() + this.ttlMs })
    return { token, expiresInMs: this.ttlMs }
  }

  /**
   * Uses a token up: only its holder, in the same session, within its lifetime, once. A token
   * presented by anyone else is not spent (its holder may still use it).
   */
  redeem(token: string, holder: Holder): { origin: Origin; parent: unknown } | BusErrorShape {
    const pending = this.#pending.get(token)
    if (!pending) return fail('DELEGATION_INVALID', 'unknown or already used delegation token')
    if (pending.expiresAt <= this.now()) {
      this.#pending.delete(token)
      return fail('DELEGATION_INVALID', `the delegation token expired (tokens live ${this.ttlMs} ms)`)
    }
    if (pending.holder.endpoint !== holder.endpoint) return fail('DELEGATION_INVALID', 'the delegation token was minted for another endpoint')
    if (pending.holder.session !== holder.session) return fail('DELEGATION_INVALID', "the delegation token was minted for another session of this endpoint")
    this.#pending.delete(token)
    return { origin: pending.origin, parent: pending.parent }
  }

  /** The invocation `parent` ended: its unused tokens go with it. */
  parentEnded(parent: unknown): void {
    for (const [token, p] of this.#pending) if (p.parent === parent) this.#pending.delete(token)
  }

  /** A session ended: its unused tokens go with it. */
  sessionEnded(session: number): void {
    for (const [token, p] of this.#pending) if (p.holder.session === session) this.#pending.delete(token)
  }

  /** Tokens pending now (expired ones not counted). */
  pending(): number {
    this.#prune()
    return this.#pending.size
  }

  #prune() {
    const now = this.now()
    for (const [token, p] of this.#pending) if (p.expiresAt <= now) this.#pending.delete(token)
  }

  #retryAfter(pending: Pending[]): number {
    const soonest = Math.min(...pending.map((p) => p.expiresAt))
    return Math.max(1, Math.ceil(soonest - this.now()))
  }
}
