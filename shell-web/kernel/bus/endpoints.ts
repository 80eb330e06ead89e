/**
 * Live endpoints. An endpoint exists from the moment the kernel binds a private
 * port to the frame it created until that frame unloads, reloads, is closed or
 * its app is removed; only then-live endpoints are listed or routed to. Each
 * binding is a new Endpoint object (a new session), so anything keyed by the
 * object dies with the session.
 *
 * @example
 * const ep = endpoints.add(new Endpoint('app:notes:background', 'notes', 'background', port))
 * endpoints.get('app:notes:background') === ep
 * endpoints.remove(ep, 'reload') // pending calls to it fail with ENDPOINT_GONE
 */
import type { CallerKind } from '../../protocol/endpoint-id.ts'
import type { PortMessage, ToolDescriptor } from '../../protocol/envelope.ts'
import { LIMITS } from '../../protocol/limits.ts'
import type { SchemaVerdict, ValidationBudget } from '../../protocol/schema.ts'
import { Rate } from '../../protocol/rate.ts'

export interface RegisteredTool {
  descriptor: ToolDescriptor
  /** The descriptor's JSON text, to recognise it again in discovery answers. */
  key: string
  validateInput: (value: unknown, budget?: ValidationBudget) => SchemaVerdict
  validateOutput: (value: unknown, budget?: ValidationBudget) => SchemaVerdict
}

let sessions = 0

export class Endpoint {
  live = true
  readonly session = ++sessions
  readonly connectedAt = Date.now()
  readonly tools = new Map<string, RegisteredTool>()
  /** Progress this session may send, across all its calls. */
  readonly progress = new Rate(LIMITS.progressBurst, LIMITS.progressPerSecond)
  /** Messages of this session dropped or refused unread; running out disconnects it. */
  readonly strikes = new Rate(LIMITS.maxStrikesPerSecond, LIMITS.maxStrikesPerSecond)

  constructor(
    readonly id: string,
    readonly app: string,
    readonly kind: CallerKind,
    readonly port: MessagePort,
  ) {}

  /** Posts on the private port (transferring `transfer`); a closed or dead port just drops it. */
  post(message: PortMessage, transfer: Transferable[] = []): void {
    if (!this.live) return
    try {
      this.port.postMessage(message, transfer)
    } catch {
      // DataCloneError cannot happen for kernel-built JSON; a closed port is fine to ignore
    }
  }
}

interface Waiter {
  id: string
  ready(ep: Endpoint): boolean
  resolve(ep: Endpoint | undefined): void
}

export class Endpoints {
  #byId = new Map<string, Endpoint>()
  #gone = new Set<(ep: Endpoint, reason: string) => void>()
  #listeners = new Set<() => void>()
  #waiters = new Set<Waiter>()

  add(ep: Endpoint): Endpoint {
    const previous = this.#byId.get(ep.id)
    if (previous) this.remove(previous, 'replaced')
    this.#byId.set(ep.id, ep)
    this.#changed()
    this.settled(ep)
    return ep
  }

  /**
   * Waits, at most `ms`, until endpoint `id` is live and `ready` (e.g. has registered a tool).
   * Resolves with it, or with undefined on expiry or abort. Callers bound how many wait (each
   * waiter is a routed call holding one of its caller's in-flight slots).
   *
   * @example
   * const bg = await endpoints.whenReady('app:notes:background', (ep) => ep.tools.has('notes_list'), 10_000, call.abort.signal)
   */
  whenReady(id: string, ready: (ep: Endpoint) => boolean, ms: number, signal: AbortSignal): Promise<Endpoint | undefined> {
    const now = this.#byId.get(id)
    if (now && ready(now)) return Promise.resolve(now)
    if (signal.aborted) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const done = (ep: Endpoint | undefined) => {
        if (!this.#waiters.delete(waiter)) return
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        resolve(ep)
      }
      const waiter: Waiter = { id, ready, resolve: done }
      const onAbort = () => done(undefined)
      const timer = setTimeout(() => done(undefined), ms)
      signal.addEventListener('abort', onAbort, { once: true })
      this.#waiters.add(waiter)
    })
  }

  /** `ep` connected or registered something: wake whoever waits for it to be ready. */
  settled(ep: Endpoint): void {
    for (const waiter of [...this.#waiters]) if (waiter.id === ep.id && ep.live && waiter.ready(ep)) waiter.resolve(ep)
  }

  remove(ep: Endpoint, reason: string): void {
    if (!ep.live) return
    ep.live = false
    if (this.#byId.get(ep.id) === ep) this.#byId.delete(ep.id)
    ep.port.onmessage = null
    ep.port.close()
    for (const handler of this.#gone) handler(ep, reason)
    this.#changed()
  }

  /** The live endpoint with this id, if any. */
  get(id: string): Endpoint | undefined {
    return this.#byId.get(id)
  }

  ofApp(app: string): Endpoint[] {
    return [...this.#byId.values()].filter((ep) => ep.app === app)
  }

  list(): Endpoint[] {
    return [...this.#byId.values()]
  }

  onGone(handler: (ep: Endpoint, reason: string) => void): void {
    this.#gone.add(handler)
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #changed() {
    for (const listener of this.#listeners) listener()
  }
}
