/**
 * The frame's end of the bus. It answers the kernel's first probe (only from
 * the parent window, only from the shell's own origin), keeps the private port
 * it receives, and from then on speaks only on that port. Requests get ids,
 * a local backstop timer and progress routed to their own active callback.
 *
 * @example
 * const transport = Transport.shared()
 * const { endpoint } = await transport.ready
 * const value = await transport.request('tools.call', { target: 'kernel', name: 'apps.list', arguments: {} })
 */
import { BusError } from './errors.ts'
import { isCode } from '../protocol/codes.ts'
import { type PortMessage, isId, isRecord } from '../protocol/envelope.ts'
import { checkJson } from '../protocol/json-compat.ts'
import { LIMITS } from '../protocol/limits.ts'

export interface ConnectInfo {
  endpoint: string
  app: string
  kind: 'background' | 'tile' | 'tray'
}

export interface RequestOptions {
  /** False for a request the kernel runs without an in-flight slot (permissions.request waits for the person). */
  holdsSlot?: boolean
  timeoutMs?: number
  onProgress?: (value: unknown) => void
  signal?: AbortSignal
  /** Transferred (detached here) beside a tools.call or canister.*_self; ≤ 16 MiB. */
  attachment?: ArrayBuffer
  /** Receives the attachment of the answer, if it carries one, just before the promise resolves. */
  onAttachment?: (attachment: ArrayBuffer) => void
  /** Agent Mode: the invocation capability this request runs under (private metadata beside the exec). */
  invocation?: string
}

interface Pending {
  onAttachment?: (attachment: ArrayBuffer) => void
  /** A routed call (tools.call / tools.list): counts toward the in-flight limit. */
  routed: boolean
  resolve(value: unknown): void
  reject(error: BusError): void
  onProgress?: (value: unknown) => void
  timer: ReturnType<typeof setTimeout>
  cleanup?: () => void
}

type Inbound = (message: Record<string, unknown>) => void

export class Transport {
  static #shared?: Transport
  /** The one transport of this document (one handshake per document). */
  static shared(): Transport {
    return (Transport.#shared ??= new Transport())
  }

  readonly ready: Promise<ConnectInfo>
  #port?: MessagePort
  #answered?: string
  #connect!: (info: ConnectInfo) => void
  #nextId = 1
  #pending = new Map<number, Pending>()
  #inbound = new Map<string, Inbound>()

  private constructor() {
    this.ready = new Promise((resolve) => (this.#connect = resolve))
    addEventListener('message', this.#onWindowMessage)
    addEventListener('pagehide', () => this.#port?.postMessage({ type: 'bye' }))
  }

  /** Where kernel-initiated messages ('exec', 'cancel', 'event') go. */
  on(type: 'exec' | 'cancel' | 'event', handler: Inbound): void {
    this.#inbound.set(type, handler)
  }

  /** The connected private port (for measurements and fixtures). */
  async port(): Promise<MessagePort> {
    await this.ready
    return this.#port!
  }

  post(message: PortMessage, transfer: Transferable[] = []): void {
    this.#port?.postMessage(message, transfer)
  }

  /** Sends an exec and resolves with its `ok`, or rejects with a BusError. */
  request(action: string, payload: unknown, options: RequestOptions = {}): Promise<unknown> {
    // The kernel's bounds, in this frame's own time (no deadline here: only the kernel's thread is shared).
    const json = checkJson(payload, LIMITS.maxPayloadBytes, LIMITS.maxDepth, { deadline: Infinity })
    if (!json.ok) return Promise.reject(new BusError(json.code, `${json.path}: ${json.reason}`))
    if (options.signal?.aborted) return Promise.reject(new BusError('CANCELLED', 'aborted before sending'))
    const attachment = options.attachment
    if (attachment !== undefined && !(attachment instanceof ArrayBuffer)) return Promise.reject(new BusError('BAD_REQUEST', 'an attachment is one ArrayBuffer'))
    if (attachment && attachment.byteLength > LIMITS.maxAttachmentBytes) {
      return Promise.reject(new BusError('ATTACHMENT_TOO_LARGE', `an attachment is at most ${LIMITS.maxAttachmentBytes} bytes`))
    }
    const routed = (action === 'tools.call' || action === 'tools.list') && options.holdsSlot !== false
    // The kernel would refuse the 9th too; refusing it here keeps an honest app's burst off the kernel.
    if (routed && [...this.#pending.values()].filter((p) => p.routed).length >= LIMITS.maxInFlightPerSource) {
      return Promise.reject(new BusError('TOO_MANY_IN_FLIGHT', `at most ${LIMITS.maxInFlightPerSource} routed calls in flight per endpoint`, LIMITS.retryAfterMs))
    }
    const id = this.#nextId++
    const backstop = (options.timeoutMs ?? LIMITS.defaultTimeoutMs) + 2_000
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.#settle(id, { error: this.#port ? new BusError('TIMEOUT', 'no answer from the kernel') : new BusError('NOT_CONNECTED', 'this frame is not connected to a Neutron shell') }), backstop)
      const onAbort = () => {
        this.post({ type: 'cancel', id })
        this.#settle(id, { error: new BusError('CANCELLED', 'aborted by the caller') })
      }
      const signal = options.signal
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#pending.set(id, { routed, resolve, reject, onProgress: options.onProgress, onAttachment: options.onAttachment, timer, cleanup: signal && (() => signal.removeEventListener('abort', onAbort)) })
      const invocation = options.invocation === undefined ? {} : { invocation: options.invocation }
      const send = () => {
        if (!this.#pending.has(id)) return
        try {
          if (attachment) this.#port!.postMessage({ type: 'exec', id, payload: { action, payload }, attachment, ...invocation }, [attachment])
          else this.#port!.postMessage({ type: 'exec', id, payload: { action, payload }, ...invocation })
        } catch (error) {
          this.#settle(id, { error: new BusError('NOT_JSON_COMPATIBLE', String(error)) })
        }
      }
      if (this.#port) send()
      else void this.ready.then(send)
    })
  }

  #settle(id: number, outcome: { ok: unknown } | { error: BusError }) {
    const pending = this.#pending.get(id)
    if (!pending) return
    this.#pending.delete(id)
    clearTimeout(pending.timer)
    pending.cleanup?.()
    if ('error' in outcome) pending.reject(outcome.error)
    else pending.resolve(outcome.ok)
  }

  #onPortMessage = (event: MessageEvent) => {
    const msg: unknown = event.data
    if (!isRecord(msg)) return
    if (msg.type === 'result' && isId(msg.id)) {
      const error = msg.error
      if (!('error' in msg)) {
        if (msg.attachment instanceof ArrayBuffer) this.#pending.get(msg.id)?.onAttachment?.(msg.attachment)
        return this.#settle(msg.id, { ok: msg.ok })
      }
      const shape = isRecord(error) && isCode(error.code) ? error : { code: 'INTERNAL' as const, message: 'malformed error' }
      return this.#settle(msg.id, { error: new BusError(shape.code as never, String(shape.message ?? ''), typeof shape.retryAfterMs === 'number' ? shape.retryAfterMs : undefined) })
    }
    if (msg.type === 'progress' && isId(msg.id)) {
      const onProgress = this.#pending.get(msg.id)?.onProgress
      try {
        onProgress?.(msg.value)
      } catch (error) {
        // A failing consumer cannot change how the call completes.
        console.warn('onProgress threw', error)
      }
      return
    }
    if (typeof msg.type === 'string') this.#inbound.get(msg.type)?.(msg)
  }

  #onWindowMessage = (event: MessageEvent) => {
    if (event.source !== parent || parent === window || event.origin !== location.origin) return
    const data: unknown = event.data
    if (!isRecord(data) || typeof data.nonce !== 'string') return
    if (data.neutron === 'probe' && this.#answered === undefined) {
      this.#answered = data.nonce
      parent.postMessage({ neutron: 'ready', nonce: data.nonce }, event.origin)
    } else if (data.neutron === 'connect' && data.nonce === this.#answered && !this.#port && event.ports[0]) {
      this.#port = event.ports[0]
      this.#port.onmessage = this.#onPortMessage
      this.#connect({ endpoint: String(data.endpoint), app: String(data.app), kind: data.kind as ConnectInfo['kind'] })
    }
  }
}
