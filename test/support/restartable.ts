/**
 * A real `wrangler dev` that a crash test kills and starts again on the same
 * storage, with the HTTP helpers those tests share: every helper reaches the
 * process running now, authenticated as the dev identity.
 */
import { devToken, startWrangler, tempPersistDir, type Wrangler } from './wrangler.ts'

/** A durable event as the tests read it from `/history`. */
export type Event = { seq: number; type: string; payload: Record<string, unknown>; payloadRef?: unknown }

/**
 * @example
 * const server = new Restartable()
 * afterAll(() => server.stop())
 * await server.start()
 * await server.post('/v1/sessions', { id: 'crashy' })
 * await server.crash()
 * await server.start()
 * const events = await server.history('crashy')
 */
export class Restartable {
  readonly persistTo = tempPersistDir()
  #dev: Wrangler | undefined
  #auth: Record<string, string> = {}
  readonly #vars: Record<string, string> | undefined

  constructor(options: { vars?: Record<string, string> } = {}) {
    this.#vars = options.vars
  }

  /** The process running now. */
  get dev(): Wrangler {
    if (!this.#dev) throw new Error('the server is not running: call start() first')
    return this.#dev
  }

  get url(): string {
    return this.dev.url
  }

  /** The bearer header of the dev identity. */
  get auth(): Record<string, string> {
    return this.#auth
  }

  /** Starts a process on this storage (the first, or the next one after a crash). */
  async start(vars?: Record<string, string>): Promise<Wrangler> {
    const merged = { ...this.#vars, ...vars }
    this.#dev = await startWrangler({ persistTo: this.persistTo, ...(Object.keys(merged).length ? { vars: merged } : {}) })
    this.#auth = { authorization: `Bearer ${await devToken()}` }
    return this.#dev
  }

  /** `kill -9` of the whole process group: no shutdown, no flush. */
  crash(): Promise<void> {
    return this.dev.crash()
  }

  async stop(): Promise<void> {
    await this.#dev?.stop()
  }

  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.url}${path}`, { ...init, headers: { ...this.#auth, ...(init.headers as Record<string, string> | undefined) } })
  }

  post(path: string, body: unknown): Promise<Response> {
    return this.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })
  }

  async get<T = Record<string, unknown>>(path: string): Promise<T> {
    return (await this.fetch(path)).json() as Promise<T>
  }

  /** Every durable event of a session (or an orchestration, with `kind`), page by page. */
  async history<T = Event>(id: string, kind: 'sessions' | 'orchestrations' = 'sessions'): Promise<T[]> {
    const all: T[] = []
    for (let after = 0; ; ) {
      const res = await this.fetch(`/v1/${kind}/${id}/history?after=${after}&limit=1000`)
      if (!res.ok) throw new Error(`history of ${id}: HTTP ${res.status} ${await res.text()}`)
      const page = (await res.json()) as { items: T[]; next: number | null }
      all.push(...page.items)
      if (page.next === null) return all
      after = page.next
    }
  }
}

/**
 * Polls `check` until it answers something other than `undefined` or `false`,
 * and returns that; throws after `timeoutMs` naming what it waited for.
 *
 * @example
 * await until(async () => (await server.history('s')).some((e) => e.type === 'session.next.tool.called'), 'the call to start')
 */
export async function until<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
