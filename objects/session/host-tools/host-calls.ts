/**
 * The open host calls of one session: which socket holds each, and how each
 * ends. A call ends exactly once: the host's answer, a timeout (`HOST_TIMEOUT`),
 * the socket closing (`HOST_GONE`), or the turn's abort (an interrupt, a failed
 * turn), whichever comes first; whatever arrives after that is refused as
 * `HOST_CALL_UNKNOWN` and changes nothing. A socket only ever answers its own
 * calls, and a call it does not hold looks exactly like one that never existed.
 *
 * Held in memory only: a call cannot outlive the turn that awaits it, and the
 * table is bounded by `MAX_HOST_CALLS_PER_SOCKET` per socket.
 */
import { NeuronError } from '../../core/errors.ts'
import { HOST_PROGRESS_INTERVAL_MS, MAX_HOST_CALLS_PER_SOCKET } from '../../core/limits.ts'

/** A host's answer, as `host.result` carries it. */
export type HostAnswer = { ok: true; content: string } | { ok: false; error: { code: string; message: string } }

export interface HostCallStart {
  /** The id of the socket the call is sent to. */
  socket: string
  /** The tool call id (the one recorded in `tool.called`). */
  call: string
  /** The provider turn that asked for the call. */
  step: string
  timeoutMs: number
  /** The turn's signal: its abort cancels the call. */
  signal: AbortSignal
  /** Tells the host to stop (`host.cancel`); called on timeout and abort, never after an answer. */
  cancel(reason: string): void
}

interface Open {
  socket: string
  step: string
  lastProgress: number
  resolve(content: string): void
  reject(error: unknown): void
  end(): void
}

/**
 * @example
 * const answer = calls.start({ socket, call, step, timeoutMs: 120_000, signal, cancel: (reason) => send({ type: 'host.cancel', call, reason }) })
 * calls.answer(socket, call, { ok: true, content: '1 note' }) // `answer` resolves with '1 note'
 */
export class HostCalls {
  private readonly open = new Map<string, Open>()

  constructor(private readonly limits = { perSocket: MAX_HOST_CALLS_PER_SOCKET, progressIntervalMs: HOST_PROGRESS_INTERVAL_MS }) {}

  /**
   * Opens a call; the promise resolves with the host's content and rejects with a coded `NeuronError`
   * or the signal's reason. Throws at once (nothing opened) for `HOST_BUSY`, a duplicate id, or an
   * aborted signal.
   */
  start(options: HostCallStart): Promise<string> {
    const { socket, call, step, signal } = options
    signal.throwIfAborted()
    if (this.open.has(call)) throw new NeuronError('HOST_CALL_DUPLICATE', `a host call ${call} is already open`, { status: 409 })
    if (this.countOf(socket) >= this.limits.perSocket) {
      throw new NeuronError('HOST_BUSY', `the host already holds ${this.limits.perSocket} open calls`, { status: 429, details: { max: this.limits.perSocket } })
    }
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        const reason = signal.reason instanceof Error ? signal.reason.message : 'the turn ended'
        if (this.end(call)) {
          options.cancel(reason)
          reject(signal.reason)
        }
      }
      const timer = setTimeout(() => {
        if (!this.end(call)) return
        options.cancel(`no answer within ${options.timeoutMs} ms`)
        reject(new NeuronError('HOST_TIMEOUT', `the host did not answer within ${options.timeoutMs} ms`, { status: 504 }))
      }, options.timeoutMs)
      signal.addEventListener('abort', onAbort, { once: true })
      this.open.set(call, {
        socket,
        step,
        lastProgress: 0,
        resolve,
        reject,
        end: () => {
          clearTimeout(timer)
          signal.removeEventListener('abort', onAbort)
        },
      })
    })
  }

  /** Settles `call` with the host's answer. Throws `HOST_CALL_UNKNOWN` unless `socket` holds it open. */
  answer(socket: string, call: string, answer: HostAnswer): void {
    const open = this.held(socket, call)
    this.end(call)
    if (answer.ok) open.resolve(answer.content)
    else open.reject(new NeuronError(answer.error.code, answer.error.message))
  }

  /**
   * Admits one progress message of `call` at `now`: the step it belongs to. Throws `HOST_CALL_UNKNOWN`
   * unless `socket` holds it, `HOST_PROGRESS_RATE` when it comes sooner than the interval after the last.
   */
  progress(socket: string, call: string, now = Date.now()): { step: string } {
    const open = this.held(socket, call)
    if (now - open.lastProgress < this.limits.progressIntervalMs) {
      throw new NeuronError('HOST_PROGRESS_RATE', `at most one progress message per call every ${this.limits.progressIntervalMs} ms`, {
        status: 429,
        details: { call, intervalMs: this.limits.progressIntervalMs },
      })
    }
    open.lastProgress = now
    return { step: open.step }
  }

  /** Fails `socket`'s open calls with `HOST_GONE` (it closed); the calls ended. */
  drop(socket: string): string[] {
    const gone = [...this.open].filter(([, open]) => open.socket === socket).map(([call]) => call)
    for (const call of gone) this.fail(call, 'HOST_GONE', 'the host disconnected before answering')
    return gone
  }

  /** Fails one open call with a coded error (no `host.cancel`: the host cannot be told). */
  fail(call: string, code: string, message: string): void {
    const open = this.open.get(call)
    if (!open || !this.end(call)) return
    open.reject(new NeuronError(code, message, { status: 502 }))
  }

  /** Calls open now (all sockets). */
  get size(): number {
    return this.open.size
  }

  private held(socket: string, call: string): Open {
    const open = this.open.get(call)
    if (!open || open.socket !== socket) {
      throw new NeuronError('HOST_CALL_UNKNOWN', `no call ${call.slice(0, 128)} is open on this socket`, { status: 404, details: { call: call.slice(0, 128) } })
    }
    return open
  }

  private end(call: string): boolean {
    const open = this.open.get(call)
    if (!open) return false
    this.open.delete(call)
    open.end()
    return true
  }

  private countOf(socket: string): number {
    let count = 0
    for (const open of this.open.values()) if (open.socket === socket) count++
    return count
  }
}
