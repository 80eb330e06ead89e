/**
 * The client's one way to call the API: base URL + bearer token + fetch, every
 * failure as a `NeuronApiError`, and the small retry/backoff rule both the
 * prompt retry and the stream reconnects use.
 */
import { errorOf, NeuronApiError, networkError } from './errors.ts'

export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8787` */
  url: string
  /** A bearer JWT (or a local dev token from `npm run -s token`). */
  token: string
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch
}

export class Http {
  readonly url: string
  readonly #token: string
  readonly #fetch: typeof fetch

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '')
    this.#token = options.token
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init))
  }

  /**
   * A 2xx response, or the typed error of any other answer (or of none).
   *
   * @example
   * const res = await http.send('GET', '/v1/me')
   */
  async send(method: string, path: string, body?: unknown, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#token}`, ...init.headers }
    // Bytes, a blob or a stream (a workspace upload) go as they are; anything else as JSON.
    const stream = body instanceof ReadableStream
    const raw = stream || body instanceof Uint8Array || body instanceof Blob
    if (stream && body.locked) throw new NeuronApiError('UPLOAD_BODY_USED', 'this stream was already read: a stream is sent once; open a new one to send it again', 0, { replayable: false })
    if (body !== undefined) headers['content-type'] = raw ? 'application/octet-stream' : 'application/json'
    // A stream goes as it is read (`duplex: 'half'`, which fetch requires of a stream body).
    const sent = body === undefined ? {} : stream ? { body: body as BodyInit, duplex: 'half' } : { body: raw ? (body as BodyInit) : JSON.stringify(body) }
    try {
      let res: Response
      try {
        res = await this.#fetch(`${this.url}${path}`, { method, headers, ...sent, ...(init.signal ? { signal: init.signal } : {}) } as RequestInit)
      } catch (cause) {
        if (init.signal?.aborted) throw cause
        throw networkError(cause)
      }
      if (!res.ok) throw await errorOf(res)
      return res
    } catch (error) {
      // Whatever failed, the stream is read (or partly read): the same call cannot be made again with it.
      if (stream && error instanceof NeuronApiError) throw new NeuronApiError(error.code, error.message, error.status, { ...error.details, replayable: false }, error.cause)
      throw error
    }
  }

  /** The JSON of a 2xx response. */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await (await this.send(method, path, body)).json()) as T
  }
}

/** Exponential backoff with jitter: 250 ms, 500 ms, … capped at 5 s. */
export function backoffMs(attempt: number): number {
  return Math.min(5000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2)
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
  })
}
