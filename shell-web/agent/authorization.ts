/**
 * How long the shell's sign-in lasts, and noticing when it ends. The token is checked once, at
 * sign-in (`GET /v1/me`), but the authorization it carries can end later: the token reaches its
 * `exp`, or the server refuses it (a 401 from any call — expired by the server's clock, its
 * signing key withdrawn — or a 403 with a `TOKEN_*` code). Either way the shell must end
 * everything the sign-in authorized (every app port and endpoint, Agent Mode, the session socket)
 * and say why: `onEnded` is called once, with the reason.
 *
 * `fetch` goes to the typed client (client/), so every response of every call passes here; the
 * expiry is scheduled from the token's own `exp` claim. With `renew` (a lasting sign-in, see
 * docs/shell.md) the token is renewed RENEW_BEFORE_MS before it expires instead, and every call
 * carries the newest one; a refused renewal ends the sign-in with the server's code. Pure but for
 * `fetch` and the timer, both replaceable: a test can leave the timer out and watch the server's
 * answer alone.
 *
 * @example
 * const authorization = new Authorization(token, { onEnded: (why) => signOut(why) })
 * const client = new NeuronClient({ url, token, fetch: authorization.fetch })
 */

/** Why a sign-in ended: the server's code when it refused the token, else the shell's own. */
export interface EndedReason {
  code: string
  message: string
}

export interface AuthorizationOptions {
  onEnded(reason: EndedReason): void
  now?: () => number
  /** Runs `fn` after `ms`; returns a cancel. */
  schedule?: (fn: () => void, ms: number) => () => void
  fetch?: typeof fetch
  /** A new token for this sign-in (a lasting sign-in's refresh); rejects with `{ code }` when refused. */
  renew?: () => Promise<string>
}

/** A lasting sign-in's token is renewed this long before it expires. */
export const RENEW_BEFORE_MS = 60_000

/** setTimeout's longest delay; a token valid for longer is checked again then. */
const MAX_DELAY_MS = 2 ** 31 - 1

export class Authorization {
  /** When the token says it expires (epoch ms); null when it does not say (the server still decides). */
  expiresAt: number | null
  #token: string
  #ended?: EndedReason
  #cancel: () => void = () => {}
  readonly #options: AuthorizationOptions

  constructor(token: string, options: AuthorizationOptions) {
    this.#options = options
    this.#token = token
    this.expiresAt = expiryOf(token)
    this.#arm()
  }

  /** The newest token (devtools and tests read it; app frames cannot reach the page). */
  get token(): string {
    return this.#token
  }

  /** Why the sign-in ended, once it has. */
  get ended(): EndedReason | undefined {
    return this.#ended
  }

  /** The client's fetch: a response that refuses the token ends the sign-in (the caller still gets it). */
  readonly fetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers)
    // The client was built with the first token; a renewed sign-in's calls carry the newest.
    if (headers.has('authorization')) headers.set('authorization', `Bearer ${this.#token}`)
    const response = await (this.#options.fetch ?? fetch)(input, { ...init, headers })
    if (response.status === 401 || response.status === 403) {
      const body = (await response.clone().json().catch(() => null)) as { error?: { code?: unknown; message?: unknown } } | null
      const code = typeof body?.error?.code === 'string' ? body.error.code : `HTTP_${response.status}`
      const message = typeof body?.error?.message === 'string' ? body.error.message : 'the server refused the token'
      if (response.status === 401 || code.startsWith('TOKEN_')) this.end({ code, message: `the server refused the sign-in: ${message}` })
    }
    return response
  }

  /** From now on the token is renewed with `renew` before it expires (the sign-in became a lasting one). */
  renewWith(renew: () => Promise<string>): void {
    if (this.#ended) return
    this.#options.renew = renew
    this.#cancel()
    this.#arm()
  }

  /** Ends the sign-in (once): the expiry timer stops and `onEnded` hears why. */
  end(reason: EndedReason): void {
    if (this.#ended) return
    this.#ended = reason
    this.#cancel()
    this.#options.onEnded(reason)
  }

  #arm() {
    if (this.expiresAt === null) return
    const now = (this.#options.now ?? Date.now)()
    const left = this.expiresAt - now
    if (left <= 0 && !this.#options.renew) return this.end({ code: 'TOKEN_EXPIRED', message: 'the sign-in token has expired' })
    const schedule = this.#options.schedule ?? ((fn: () => void, ms: number) => {
      const timer = setTimeout(fn, ms)
      return () => clearTimeout(timer)
    })
    if (this.#options.renew) {
      const renew = this.#options.renew
      const wait = Math.max(0, left - RENEW_BEFORE_MS)
      this.#cancel = schedule(() => (wait > MAX_DELAY_MS ? this.#arm() : void this.#renew(renew)), Math.min(wait, MAX_DELAY_MS))
      return
    }
    this.#cancel = schedule(() => (left > MAX_DELAY_MS ? this.#arm() : this.end({ code: 'TOKEN_EXPIRED', message: 'the sign-in token has expired' })), Math.min(left, MAX_DELAY_MS))
  }

  async #renew(renew: () => Promise<string>) {
    try {
      const token = await renew()
      if (this.#ended) return
      this.#token = token
      this.expiresAt = expiryOf(token)
      this.#arm()
    } catch (error) {
      const code = (error as { code?: unknown }).code
      this.end({ code: typeof code === 'string' ? code : 'REFRESH_FAILED', message: `the sign-in could not be renewed: ${(error as Error).message}` })
    }
  }
}

/** A JWT's `exp` as epoch ms, or null when it has none the shell can read. */
function expiryOf(token: string): number | null {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replaceAll('-', '+').replaceAll('_', '/'))) as { exp?: unknown }
    return typeof payload.exp === 'number' && Number.isFinite(payload.exp) ? payload.exp * 1000 : null
  } catch {
    return null
  }
}
