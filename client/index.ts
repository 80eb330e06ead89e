/**
 * The typed Neuron client: public HTTP API only, for Node ≥ 20, browsers and Workers.
 *
 * @example
 * const neuron = new NeuronClient({ url: 'http://127.0.0.1:8787', token })
 * const session = await neuron.createSession({ model: 'local/echo-1' })
 * const turn = await session.prompt('hello')
 * for await (const text of turn.text()) process.stdout.write(text)
 */
import { AppsClient } from './apps.ts'
import { ConfigClient, OwnerConfigClient } from './config.ts'
import { McpClient } from './mcp.ts'
import { ModulesClient } from './modules.ts'
import { GraphClient, MemoryClient } from './graph.ts'
import { type ClientOptions, Http } from './http.ts'
import { OrchestrationHandle } from './orchestration.ts'
import { SessionHandle } from './session.ts'
import { SessionSocket, type SocketOptions } from './socket.ts'
import type { AgentListing, CreateOrchestrationInput, CreateSessionInput, ListedSession, OrchestrationListing, OrchestrationView, SessionListOptions, SessionView } from './types.ts'

export { NeuronApiError } from './errors.ts'
export { EVENT, EVENT_TYPES, type EventOf, type EventPayloads, type EventType, isEvent, isSessionEvent, type SessionEvent } from '../objects/session/events/events.ts'
export type { AppHandle, AppsClient } from './apps.ts'
export type { ConfigClient, OwnerConfigClient } from './config.ts'
export type { McpClient } from './mcp.ts'
export type { ModulesClient } from './modules.ts'
export type { GraphClient, MemoryClient } from './graph.ts'
export type { ClientOptions } from './http.ts'
export type { OrchestrationFrame, OrchestrationHandle } from './orchestration.ts'
export type { SessionHandle } from './session.ts'
export type { Hook, HooksHandle } from './hooks.ts'
export type { Schedule, ScheduleChange, ScheduleInput, SchedulesHandle } from './schedules.ts'
export type { UploadBody, WorkspaceCommitted, WorkspaceDiff, WorkspaceFile, WorkspaceHandle, WorkspaceReader } from './workspace.ts'
export { LiveTranscript, type StepView } from './live.ts'
export { type InterruptTarget, ShownTurn } from './shown-turn.ts'
export { TextOnce } from './text-once.ts'
export type { Turn } from './turn.ts'
export type { SessionSocket, SocketOptions } from './socket.ts'
export type * from './types.ts'

export class NeuronClient {
  readonly #http: Http

  constructor(options: ClientOptions) {
    this.#http = new Http(options)
  }

  get url(): string {
    return this.#http.url
  }

  /** Who the token says you are: `{ id, issuer, subject, claims, via }`. */
  me(): Promise<{ id: string; issuer: string; subject: string; claims: string[]; via: string }> {
    return this.#http.json('GET', '/v1/me')
  }

  /** The agent profiles your sessions may run (`createSession({ agent })`), merged, each with its source. */
  agents(): Promise<{ items: AgentListing[] }> {
    return this.#http.json('GET', '/v1/agents')
  }

  /** Creates a session (the same request again is a no-op) and returns its handle. */
  async createSession(input: CreateSessionInput = {}): Promise<SessionHandle & { created: SessionView }> {
    const view = await this.#http.json<SessionView>('POST', '/v1/sessions', input)
    return Object.assign(new SessionHandle(this.#http, view.id), { created: view })
  }

  /**
   * One page of the caller's own sessions (oldest first unless `order: 'newest'`), each with its
   * latest title and archive state; `q` searches titles, `archived: true` lists the archived ones,
   * `live: true` adds each one's status, last activity and pending approvals (pages of at most 50).
   * A search may answer fewer than `limit` items with a `next` to continue from.
   *
   * @example
   * const { items, next } = await neuron.sessions({ order: 'newest', live: true, limit: 50, q: 'release' })
   */
  sessions(page: SessionListOptions = {}): Promise<{ items: ListedSession[]; next: number | null }> {
    const query = new URLSearchParams({ after: String(page.after ?? 0), limit: String(page.limit ?? 100) })
    if (page.q !== undefined) query.set('q', page.q)
    if (page.archived !== undefined) query.set('archived', String(page.archived))
    if (page.order !== undefined) query.set('order', page.order)
    if (page.live !== undefined) query.set('live', String(page.live))
    return this.#http.json('GET', `/v1/sessions?${query}`)
  }

  /**
   * Every session of the caller, page by page.
   *
   * @example
   * for await (const listed of neuron.allSessions()) console.log(listed.id, listed.title)
   */
  async *allSessions(): AsyncGenerator<ListedSession> {
    for (let after: number | null = 0; after !== null; ) {
      const page = await this.sessions({ after, limit: 500 })
      yield* page.items
      after = page.next
    }
  }

  /** A handle on an existing session (nothing is fetched until you call it). */
  session(id: string): SessionHandle {
    return new SessionHandle(this.#http, id)
  }

  /** A session's config overrides, merged over its owner's document. */
  sessionConfig(id: string): ConfigClient {
    return new ConfigClient(this.#http, `/v1/sessions/${encodeURIComponent(id)}/config`)
  }

  /** The caller's config document, its schema and the stored provider keys. */
  get config(): OwnerConfigClient {
    return new OwnerConfigClient(this.#http)
  }

  /** The caller's MCP servers: their stored headers and OAuth authorizations. */
  get mcp(): McpClient {
    return new McpClient(this.#http)
  }

  /**
   * Starts an orchestration (with a plan, or a goal a planning turn plans) and
   * returns its handle. The same id again is a no-op.
   *
   * @example
   * const run = await neuron.createOrchestration({ goal: 'ship it', plan: { packages: [{ id: 'a', goal: 'write' }] } })
   */
  async createOrchestration(input: CreateOrchestrationInput): Promise<OrchestrationHandle & { created: OrchestrationView }> {
    const view = await this.#http.json<OrchestrationView>('POST', '/v1/orchestrations', input)
    return Object.assign(new OrchestrationHandle(this.#http, view.id), { created: view })
  }

  /**
   * One page of the caller's own orchestrations, oldest first (what each was created with; its live
   * state is `orchestration(id).view()`).
   *
   * @example
   * const { items, next } = await neuron.orchestrations({ limit: 20 })
   */
  orchestrations(page: { after?: number; limit?: number } = {}): Promise<{ items: OrchestrationListing[]; next: number | null }> {
    const query = new URLSearchParams({ after: String(page.after ?? 0), limit: String(page.limit ?? 100) })
    return this.#http.json('GET', `/v1/orchestrations?${query}`)
  }

  orchestration(id: string): OrchestrationHandle {
    return new OrchestrationHandle(this.#http, id)
  }

  /** The caller's app packages and installs, and a handle per installation. */
  get apps(): AppsClient {
    return new AppsClient(this.#http)
  }

  /** The caller's uploaded tool modules. */
  get modules(): ModulesClient {
    return new ModulesClient(this.#http)
  }

  /** The caller's graph, or with `scope` (e.g. `org:acme`) the graph of a claim the caller holds. */
  graph(scope?: string): GraphClient {
    return new GraphClient(this.#http, scope)
  }

  /** The caller's memory, or a claim's with `scope`. */
  memory(scope?: string): MemoryClient {
    return new MemoryClient(this.#http, scope)
  }

  /** WebSocket mode for a session, authenticated by tickets. */
  socket(id: string, options: Omit<SocketOptions, 'url'> = {}): SessionSocket {
    return new SessionSocket(this.session(id), { ...options, url: this.#http.url })
  }
}
