/**
 * The client's one way to call the API: base URL + bearer token + fetch, every
 * failure as a `NeuronApiError`, and the small retry/backoff rule both the
 * prompt retry and the stream reconnects use.
 */
import { errorOf, networkError } from './errors.ts'

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
    // Bytes (a workspace upload) go as they are; anything else as JSON.
    const raw = body instanceof Uint8Array
    if (body !== undefined) headers['content-type'] = raw ? 'application/octet-stream' : 'application/json'
    let res: Response
    try {
      res = await this.#fetch(`${this.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: raw ? (body as BodyInit) : JSON.stringify(body) }), ...(init.signal ? { signal: init.signal } : {}) })
    } catch (cause) {
      if (init.signal?.aborted) throw cause
      throw networkError(cause)
    }
    if (!res.ok) throw await errorOf(res)
    return res
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
