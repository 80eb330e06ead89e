/**
 * WebSocket mode for one session: frames, prompts and interrupts on one socket,
 * authenticated by a one-use ticket (browsers cannot set headers on a socket).
 * When the socket drops it mints a new ticket, reconnects and subscribes after
 * the last durable event it yielded, so nothing is skipped or yielded twice.
 *
 * The server answers a socket's messages in the order it sent them, so replies
 * (receipt, interrupt, permission.answered, host.offered, error, pong) are
 * matched to requests first-in, first-out. The owner answers a pending
 * permission request with `answerPermission`. Host tools (a browser offering
 * its tools to the session's model): `offerHost` after every `open` frame,
 * answer each `host` frame with `hostProgress` / `hostResult`. An interrupt
 * names the turn the frames handed out show running (shown-turn.ts).
 */
import { NeuronApiError } from './errors.ts'
import { backoffMs, sleep } from './http.ts'
import type { SessionHandle } from './session.ts'
import { type InterruptTarget, ShownTurn } from './shown-turn.ts'
import type { HostMessage, HostOffered, HostTool, InterruptResult, PermissionAnswer, PermissionAnswered, PromptInput, PromptResult, SocketFrame, Stored } from './types.ts'

type Reply = { resolve: (value: unknown) => void; reject: (error: unknown) => void; kind: string }

export interface SocketOptions {
  /** Resume after this sequence (default 0). */
  after?: number
  /** A WebSocket constructor; defaults to the global one (Node ≥ 22, browsers, Workers). */
  WebSocket?: typeof WebSocket
  /** The server's base URL, e.g. `http://127.0.0.1:8787` (http → ws). */
  url: string
}

export class SessionSocket {
  readonly #session: SessionHandle
  readonly #options: SocketOptions
  #socket: WebSocket | null = null
  #last: number
  #closed = false
  #replies: Reply[] = []
  #queue: SocketFrame[] = []
  #wake: (() => void) | null = null
  #opening: Promise<void> | null = null
  readonly #shown = new ShownTurn()
  /** Whether `frames()` has handed out a whole replay, so `#shown` is what the consumer shows. */
  #shownReady = false
  /** Why the socket cannot go on (its token expired or was refused): `frames()` ends with it. */
  #failure: NeuronApiError | null = null

  constructor(session: SessionHandle, options: SocketOptions) {
    this.#session = session
    this.#options = options
    this.#last = options.after ?? 0
  }

  /** Opens (or reopens) the socket and subscribes after the last event seen; an open socket is kept. */
  open(): Promise<void> {
    if (this.#socket) return Promise.resolve() // set only once open, cleared when it closes
    this.#opening ??= this.#connect().finally(() => (this.#opening = null))
    return this.#opening
  }

  /** Admits a prompt over the socket; a drop before the receipt retries with the same message id. */
  async prompt(input: string | PromptInput): Promise<PromptResult> {
    const body: PromptInput = typeof input === 'string' ? { text: input } : { ...input }
    body.id ??= crypto.randomUUID()
    const reply = (await this.#retried({ type: 'prompt', ...body }, 'receipt')) as PromptResult
    return { receipt: reply.receipt, duplicate: reply.duplicate }
  }

  /**
   * Stops the running turn this socket's `frames()` has shown (see shown-turn.ts): it names that
   * turn and an id kept while the turn is shown, so a double click or a retry never stops the
   * turn that started after it. Before its first `replay-end` it names the turn the view shows.
   * A drop before the answer retries with the same id and step.
   *
   * @example
   * button.onclick = () => socket.interrupt() // while something iterates socket.frames()
   */
  async interrupt(target?: Partial<InterruptTarget>): Promise<InterruptResult> {
    const shown = target ?? (this.#shownReady ? this.#shown.target() : {})
    const step = shown.step === undefined ? (await this.#session.view()).step : shown.step
    const message = { type: 'interrupt', id: shown.id ?? crypto.randomUUID(), ...(step === null ? {} : { step }), ...(shown.reason === undefined ? {} : { reason: shown.reason }) }
    const { type: _type, ...result } = (await this.#retried(message, 'interrupt')) as InterruptResult & { type: string }
    return result
  }

  /**
   * Answers a pending permission request as the session's owner (docs/approvals.md): `once` runs
   * the parked call, `always` also adds the rule that allows it from now on, `reject` fails it
   * `PERMISSION_DENIED` with the reason. A drop before the answer retries it: the same answer again
   * is a duplicate that writes nothing. A refused answer throws its code (`PERMISSION_SETTLED`, …).
   *
   * @example
   * await socket.answerPermission({ toolCallId: 'call_3_1', reply: 'reject', reason: 'not that file' })
   */
  async answerPermission(answer: PermissionAnswer): Promise<PermissionAnswered> {
    const { type: _type, ...result } = (await this.#retried({ type: 'permission.answer', ...answer }, 'permission.answered')) as PermissionAnswered & { type: string }
    return result
  }

  /**
   * Offers this socket's host tools (replacing its previous offer; `[]` withdraws). An offer lives
   * with the socket: make it again after each `open` frame.
   */
  async offerHost(host: string, tools: HostTool[]): Promise<HostOffered> {
    const { type: _type, ...offered } = (await this.#request({ type: 'host.offer', host, tools }, 'host.offered')) as HostOffered & { type: string }
    return offered
  }

  /** Progress of a host call this socket holds (no reply; a refusal arrives as a `host-error` frame). */
  hostProgress(call: string, progress: unknown): void {
    this.#socket?.send(JSON.stringify({ type: 'host.progress', call, progress }))
  }

  /** Settles a host call this socket holds. A socket that dropped meanwhile cannot: the server failed the call (HOST_GONE). */
  hostResult(call: string, outcome: { ok: true; content: string } | { ok: false; error: { code: string; message: string } }): void {
    this.#socket?.send(JSON.stringify({ type: 'host.result', call, ...outcome }))
  }

  /**
   * The frames, as they arrive, across reconnects. Ends when `close()` is called, and throws when
   * the socket cannot go on: the server ended it because its token expired (`TOKEN_EXPIRED`), or
   * reconnecting was refused (the token's own 401).
   */
  async *frames(): AsyncGenerator<SocketFrame> {
    await this.open()
    while (!this.#closed || this.#queue.length > 0) {
      const frame = this.#queue.shift()
      if (frame) {
        // What the consumer has been handed is what it shows: the turn an interrupt names.
        if (frame.kind === 'event' || frame.kind === 'delta' || frame.kind === 'snapshot') this.#shown.apply(frame)
        if (frame.kind === 'replay-end') this.#shownReady = true
        yield frame
      } else if (this.#failure) throw this.#failure
      else await new Promise<void>((resolve) => (this.#wake = resolve))
    }
  }

  close(): void {
    this.#closed = true
    this.#socket?.close(1000, 'client closed')
    this.#fail(new NeuronApiError('CLOSED', 'the socket was closed', 0))
    this.#wake?.()
  }

  /** A request the server may take twice (its id or its answer makes a retry a duplicate): retried on a drop, 429 or 5xx. */
  async #retried(message: Record<string, unknown>, kind: string): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#request(message, kind)
      } catch (error) {
        if (!(error instanceof NeuronApiError) || !error.retryable || attempt >= 5 || this.#closed) throw error
        await sleep(backoffMs(attempt))
      }
    }
  }

  async #request(message: Record<string, unknown>, kind: string): Promise<unknown> {
    if (this.#failure) throw this.#failure
    await this.open()
    return new Promise((resolve, reject) => {
      this.#replies.push({ resolve, reject, kind })
      this.#socket!.send(JSON.stringify(message))
    })
  }

  async #connect(): Promise<void> {
    for (let attempt = 0; !this.#closed; attempt++) {
      try {
        const { ticket } = await this.#session.ticket()
        const url = `${this.#options.url.replace(/^http/, 'ws')}/v1/sessions/${encodeURIComponent(this.#session.id)}/ws?ticket=${encodeURIComponent(ticket)}`
        const Socket = this.#options.WebSocket ?? WebSocket
        const socket = new Socket(url)
        await new Promise<void>((resolve, reject) => {
          socket.addEventListener('open', () => resolve(), { once: true })
          socket.addEventListener('error', () => reject(new NeuronApiError('NETWORK', 'the WebSocket did not open', 0)), { once: true })
        })
        this.#socket = socket
        socket.addEventListener('message', (event) => this.#onMessage(String(event.data)))
        socket.addEventListener('close', () => this.#onClose(socket))
        socket.send(JSON.stringify({ type: 'subscribe', after: this.#last }))
        this.#push({ kind: 'open' })
        return
      } catch (error) {
        if (error instanceof NeuronApiError && !error.retryable) throw error
        await sleep(backoffMs(attempt))
      }
    }
  }

  #onMessage(text: string): void {
    const message = JSON.parse(text) as { type: string; seq?: number; event?: Stored; delta?: unknown; snapshot?: unknown; error?: { code: string; message: string; details?: Record<string, unknown> } }
    switch (message.type) {
      case 'event':
        if (message.seq! <= this.#last) return
        this.#last = message.seq!
        return this.#push({ kind: 'event', envelope: message.event! })
      case 'delta':
        return this.#push({ kind: 'delta', delta: message.delta as never })
      case 'snapshot':
        return this.#push({ kind: 'snapshot', snapshot: message.snapshot as never })
      case 'replay-page':
        // More history waits: the client paces the replay by asking for the next page.
        return this.#socket?.send(JSON.stringify({ type: 'subscribe', after: message.seq! }))
      case 'replay-end':
        return this.#push({ kind: 'replay-end', seq: message.seq! })
      case 'host.call':
      case 'host.cancel':
        return this.#push({ kind: 'host', message: message as unknown as HostMessage })
      case 'error': {
        // A refused host.progress / host.result has no request waiting for it: it names its call.
        if (message.error?.details?.call !== undefined) return this.#push({ kind: 'host-error', error: message.error })
        const reply = this.#replies.shift()
        const { code, message: why, details } = message.error!
        const error = new NeuronApiError(code, why, code.startsWith('TOKEN_') ? 401 : 400, details)
        // The server ends a socket whose token expired: nothing more will come, and reconnecting would be refused.
        if (code.startsWith('TOKEN_')) this.#end(error)
        reply?.reject(error)
        return
      }
      default:
        this.#replies.shift()?.resolve(message)
    }
  }

  #onClose(socket: WebSocket): void {
    if (this.#socket !== socket) return
    this.#socket = null
    this.#fail(this.#failure ?? new NeuronApiError('NETWORK', 'the WebSocket closed before the reply', 0))
    if (!this.#closed && !this.#failure) void this.open().catch((error: unknown) => this.#end(error instanceof NeuronApiError ? error : new NeuronApiError('NETWORK', String(error), 0)))
  }

  /** The socket cannot go on: replies fail, `frames()` throws `error` once the frames before it are read. */
  #end(error: NeuronApiError): void {
    this.#failure ??= error
    this.#fail(this.#failure)
    this.#wake?.()
    this.#wake = null
  }

  #fail(error: NeuronApiError): void {
    for (const reply of this.#replies.splice(0)) reply.reject(error)
  }

  #push(frame: SocketFrame): void {
    this.#queue.push(frame)
    this.#wake?.()
    this.#wake = null
  }
}
