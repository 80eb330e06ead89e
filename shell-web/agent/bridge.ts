/**
 * The bridge between a session's socket and the kernel: while the shell holds
 * the socket it offers the session the tools of every enabled Agent Mode
 * entrypoint whose app is live (host tools), again after every reconnect and
 * whenever that set changes; each `host.call` becomes one root invocation
 * routed by the kernel (its capability, limits, validation and audit), its
 * progress goes back as `host.progress`, its outcome as `host.result`; a
 * `host.cancel` stops the root, so the app's `context.signal` aborts. A call
 * the kernel refuses is answered with the kernel's code, never re-run.
 *
 * @example
 * const bridge = new HostBridge(kernel, socket)
 * for await (const frame of socket.frames()) if (!bridge.handle(frame)) render(frame)
 */
import type { HostMessage, HostOffered, SessionSocket, SocketFrame } from '../../client/index.ts'
import type { Kernel } from '../kernel/kernel.ts'

/** The name this shell offers its tools under (their registry scope is `host:shell`). */
export const HOST = 'shell'
/** The server takes at most one progress message per call every 50 ms; in between, the latest waits. */
const PROGRESS_INTERVAL_MS = 50

export class HostBridge {
  /** What was offered last (names and schemas), to offer again only on a change. */
  #offered = ''
  #calls = new Map<string, AbortController>()
  #stop: (() => void)[] = []
  /** The last offer's answer (the panel shows what the session accepted). */
  lastOffer?: HostOffered

  constructor(
    private readonly kernel: Kernel,
    private readonly socket: SessionSocket,
    private readonly onChange: () => void = () => {},
  ) {
    this.#stop.push(kernel.agentMode.onChange(() => void this.offer()), kernel.endpoints.onChange(() => void this.offer()))
  }

  /** Offers the current set, unless it is what this socket already offers (`force` after a reconnect). */
  async offer(force = false): Promise<void> {
    const tools = this.kernel.agent.offered()
    const key = JSON.stringify(tools)
    if (!force && key === this.#offered) return
    this.#offered = key
    try {
      this.lastOffer = await this.socket.offerHost(HOST, tools)
    } catch (error) {
      this.#offered = '' // offered again on the next change or reconnect
      console.warn('host.offer', error)
    }
    this.onChange()
  }

  /** Takes the frames that are the bridge's; false for the rest (the panel's). */
  handle(frame: SocketFrame): boolean {
    if (frame.kind === 'open') {
      // A new connection: the server failed the previous one's open calls (HOST_GONE) and will not take their answers.
      this.#abortAll()
      return void this.offer(true), true
    }
    if (frame.kind === 'host-error') return console.warn('host message refused', frame.error), true
    if (frame.kind !== 'host') return false
    this.#onHost(frame.message)
    return true
  }

  /** The socket is going away (sign-out, another session): stop every call it holds. */
  close(): void {
    for (const stop of this.#stop.splice(0)) stop()
    this.#abortAll()
  }

  #abortAll() {
    for (const controller of this.#calls.values()) controller.abort()
    this.#calls.clear()
  }

  #onHost(message: HostMessage) {
    if (message.type === 'host.cancel') return this.#calls.get(message.call)?.abort()
    void this.#run(message.call, message.name, message.input)
  }

  async #run(call: string, name: string, input: unknown) {
    const controller = new AbortController()
    this.#calls.set(call, controller)
    let sentAt = -Infinity
    let waiting: { value: unknown } | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      timer = undefined
      if (!waiting || controller.signal.aborted) return
      sentAt = performance.now()
      this.socket.hostProgress(call, waiting.value)
      waiting = undefined
    }
    const outcome = await this.kernel.agent.call({
      name,
      arguments: input,
      signal: controller.signal,
      onProgress: (value) => {
        waiting = { value }
        if (!timer) timer = setTimeout(flush, Math.max(0, sentAt + PROGRESS_INTERVAL_MS - performance.now()))
      },
    })
    clearTimeout(timer)
    this.#calls.delete(call)
    if (controller.signal.aborted) return // cancelled by the session: it no longer wants an answer
    if ('ok' in outcome) this.socket.hostResult(call, { ok: true, content: JSON.stringify(outcome.ok) })
    else this.socket.hostResult(call, { ok: false, error: { code: outcome.error.code, message: outcome.error.message } })
  }
}
