/**
 * One session, as the client sees it: read it, prompt it exactly once (the
 * message id is made once and reused by every retry), interrupt it, page its
 * history, read its artifacts and its workspace, and follow its events with an iterator that reconnects by itself.
 */
import { NeuronApiError } from './errors.ts'
import { follow } from './follow.ts'
import { backoffMs, type Http, sleep } from './http.ts'
import type { InterruptTarget } from './shown-turn.ts'
import { Turn } from './turn.ts'
import { WorkspaceHandle } from './workspace.ts'
import { SchedulesHandle } from './schedules.ts'
import { HooksHandle } from './hooks.ts'
import type { FollowOptions, InterruptResult, Page, PendingPermission, PermissionAnswer, PermissionAnswered, PromptInput, Receipt, SessionFrame, SessionMcpServer, SessionView, Stored } from './types.ts'


export class SessionHandle {
  readonly id: string
  readonly #http: Http
  readonly #path: string

  constructor(http: Http, id: string) {
    this.#http = http
    this.id = id
    this.#path = `/v1/sessions/${encodeURIComponent(id)}`
    this.workspace = new WorkspaceHandle(http, this.#path)
    this.schedules = new SchedulesHandle(http, this.#path)
    this.hooks = new HooksHandle(http, this.#path)
  }

  /** The session's hooks: signed outside deliveries become its prompts (client/hooks.ts). */
  readonly hooks: HooksHandle

  /** The session's schedules (client/schedules.ts). */
  readonly schedules: SchedulesHandle

  /** The session's files (client/workspace.ts). */
  readonly workspace: WorkspaceHandle

  /** The session's projection: status, model, pending, counts, lastSequence. */
  view(): Promise<SessionView> {
    return this.#http.json('GET', this.#path)
  }

  /**
   * Admits a prompt. Network failures, 5xx and 429 are retried with the same
   * message id, so the server admits it once whatever happens on the way. The
   * answer is the receipt and the turn to follow (turn.ts): `stream()` from the
   * admission to the end of the loop that answered it, `text()` its answer.
   *
   * @example
   * const turn = await session.prompt('What is 2+3?')
   * for await (const text of turn.text()) process.stdout.write(text)
   */
  async prompt(input: string | PromptInput, options: { retries?: number; signal?: AbortSignal } = {}): Promise<Turn> {
    const body: PromptInput = typeof input === 'string' ? { text: input } : { ...input }
    body.id ??= crypto.randomUUID()
    return this.#retrying(options, async (signal) => {
      const res = await this.#http.send('POST', `${this.#path}/prompt`, body, signal ? { signal } : {})
      return new Turn(this, (await res.json()) as Receipt, res.status === 200)
    })
  }

  /** Runs `send` again after a retryable failure (network, 5xx, 429), at most `retries` times, with backoff. */
  async #retrying<T>(options: { retries?: number; signal?: AbortSignal }, send: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    const retries = options.retries ?? 5
    for (let attempt = 0; ; attempt++) {
      try {
        return await send(options.signal)
      } catch (error) {
        if (!(error instanceof NeuronApiError) || !error.retryable || attempt >= retries) throw error
        await sleep(backoffMs(attempt), options.signal)
      }
    }
  }

  /** The MCP servers the session's config lists, as it last listed them (tools, refusals, a server's error). */
  async mcpServers(): Promise<SessionMcpServer[]> {
    return (await this.#http.json<{ items: SessionMcpServer[] }>('GET', `${this.#path}/mcp`)).items
  }

  /**
   * Stops the running turn; pending prompts stay admitted. The interrupt names its target: the
   * turn you show (`ShownTurn.target()`, or an event's `step`; `null` when none is shown) and an
   * id. Without a target it names the turn the view shows running now, so neither a retry nor a
   * late arrival reaches a turn that started after the call. Network failures, 5xx and 429 are
   * retried with the same id and step, so the server records it once. `interrupted: false` with
   * a `step` means that turn had already ended.
   *
   * @example
   * const shown = new ShownTurn() // fed every frame you show
   * const reply = await session.interrupt(shown.target())
   * if (!reply.interrupted) console.log(reply.message) // "turn … is not running (it ended, or never started)"
   */
  async interrupt(target: Partial<InterruptTarget> = {}, options: { retries?: number; signal?: AbortSignal } = {}): Promise<InterruptResult> {
    const step = target.step === undefined ? (await this.view()).step : target.step
    const body = { id: target.id ?? crypto.randomUUID(), ...(step === null ? {} : { step }), ...(target.reason === undefined ? {} : { reason: target.reason }) }
    return this.#retrying(options, async (signal) => (await this.#http.send('POST', `${this.#path}/interrupt`, body, signal ? { signal } : {})).json() as Promise<InterruptResult>)
  }

  /**
   * The permission requests waiting for the owner's answer, oldest first: each parked call's tool,
   * source, what it acts on, the input and why it asks, and when it expires.
   *
   * @example
   * for (const request of await session.permissions()) console.log(request.tool, request.reason)
   */
  async permissions(): Promise<PendingPermission[]> {
    return (await this.#http.json<{ items: PendingPermission[] }>('GET', `${this.#path}/permissions`)).items
  }

  /**
   * Answers a pending permission request as the session's owner: `once` runs the call, `always`
   * also adds the rule to the session's config, `reject` fails it `PERMISSION_DENIED` (the model
   * reads `reason`). Retried on network failures, 5xx and 429: the same answer again is a
   * `duplicate` that writes nothing.
   *
   * @example
   * const [request] = await session.permissions()
   * await session.answerPermission({ toolCallId: request.toolCallId, reply: 'once' })
   */
  async answerPermission(answer: PermissionAnswer, options: { retries?: number; signal?: AbortSignal } = {}): Promise<PermissionAnswered> {
    return this.#retrying(options, async (signal) => (await this.#http.send('POST', `${this.#path}/permissions`, answer, signal ? { signal } : {})).json() as Promise<PermissionAnswered>)
  }

  /**
   * One artifact of the session, as an event names it: the whole output of a tool call the model
   * saw cut (`tool.succeeded.artifact`), an epoch's baseline, the tool specs a step offered.
   *
   * @example
   * const cut = (await session.history()).items.find((e) => e.payload?.artifact)
   * const { type, bytes } = await session.artifact(cut.payload.artifact)
   * console.log(type, new TextDecoder().decode(bytes))
   */
  async artifact(ref: string): Promise<{ type: string; bytes: Uint8Array }> {
    const res = await this.#http.send('GET', `${this.#path}/artifacts/${encodeURIComponent(ref)}`)
    return { type: res.headers.get('content-type') ?? 'application/octet-stream', bytes: new Uint8Array(await res.arrayBuffer()) }
  }

  /** One page of durable events after `after`. */
  history(options: { after?: number; limit?: number } = {}): Promise<Page> {
    const query = new URLSearchParams({ after: String(options.after ?? 0), limit: String(options.limit ?? 100) })
    return this.#http.json('GET', `${this.#path}/history?${query}`)
  }

  /**
   * Every durable event after `after`, page by page.
   *
   * @example
   * for await (const event of session.allHistory()) console.log(event.seq, event.type)
   */
  async *allHistory(options: { after?: number; pageSize?: number } = {}): AsyncGenerator<Stored> {
    let after: number | null = options.after ?? 0
    while (after !== null) {
      const page = await this.history({ after, limit: options.pageSize ?? 500 })
      yield* page.items as Stored[]
      after = page.next
    }
  }

  /**
   * The session's frames over SSE: durable events after `after` (replayed, then
   * live), `replay-end`, live deltas, and `snapshot` (the open step's partial output, after the
   * replay and after missed deltas; `LiveTranscript` applies it). When the connection drops it
   * reconnects with `Last-Event-ID` set to the last durable event it yielded,
   * so no durable event is skipped or yielded twice. Ends when `signal` aborts;
   * throws a `NeuronApiError` the server will keep answering (401, 404, …).
   *
   * @example
   * for await (const frame of session.events({ after: 0, signal })) if (frame.kind === 'event') console.log(frame.envelope.type)
   */
  async *events(options: FollowOptions = {}): AsyncGenerator<SessionFrame> {
    for await (const item of follow(this.#http, `${this.#path}/events`, options)) {
      if (item.kind === 'event') yield item
      else if (item.message.event === 'delta') yield { kind: 'delta', delta: JSON.parse(item.message.data) }
      else if (item.message.event === 'snapshot') yield { kind: 'snapshot', snapshot: JSON.parse(item.message.data) }
      else if (item.message.event === 'replay-end') yield { kind: 'replay-end', seq: (JSON.parse(item.message.data) as { seq: number }).seq }
    }
  }

  /** A one-use ticket for this session's `/events` or `/ws`, for clients that cannot send headers. */
  ticket(): Promise<{ ticket: string; expiresAt: number }> {
    return this.#http.json('POST', `${this.#path}/tickets`, {})
  }
}
