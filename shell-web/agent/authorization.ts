/**
 * How long the shell's sign-in lasts, and noticing when it ends. The token is checked once, at
 * sign-in (`GET /v1/me`), but the authorization it carries can end later: the token reaches its
 * `exp`, or the server refuses it (a 401 from any call — expired by the server's clock, its
 * signing key withdrawn — or a 403 with a `TOKEN_*` code). Either way the shell must end
 * everything the sign-in authorized (every app port and endpoint, Agent Mode, the session socket)
 * and say why: `onEnded` is called once, with the reason.
 *
 * `fetch` goes to the typed client (client/), so every response of every call passes here; the
 * expiry is scheduled from the token's own `exp` claim. Pure but for `fetch` and the timer, both
 * replaceable: a test can leave the timer out and watch the server's answer alone.
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
}

/** setTimeout's longest delay; a token valid for longer is checked again then. */
const MAX_DELAY_MS = 2 ** 31 - 1

export class Authorization {
  /** When the token says it expires (epoch ms); null when it does not say (the server still decides). */
  readonly expiresAt: number | null
  #ended?: EndedReason
  #cancel: () => void = () => {}
  readonly #options: AuthorizationOptions

  constructor(token: string, options: AuthorizationOptions) {
    this.#options = options
    this.expiresAt = expiryOf(token)
    this.#arm()
  }

  /** Why the sign-in ended, once it has. */
  get ended(): EndedReason | undefined {
    return this.#ended
  }

  /** The client's fetch: a response that refuses the token ends the sign-in (the caller still gets it). */
  readonly fetch: typeof fetch = async (input, init) => {
    const response = await (this.#options.fetch ?? fetch)(input, init)
    if (response.status === 401 || response.status === 403) {
      const body = (await response.clone().json().catch(() => null)) as { error?: { code?: unknown; message?: unknown } } | null
      const code = typeof body?.error?.code === 'string' ? body.error.code : `HTTP_${response.status}`
      const message = typeof body?.error?.message === 'string' ? body.error.message : 'the server refused the token'
      if (response.status === 401 || code.startsWith('TOKEN_')) this.end({ code, message: `the server refused the sign-in: ${message}` })
    }
    return response
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
    if (left <= 0) return this.end({ code: 'TOKEN_EXPIRED', message: 'the sign-in token has expired' })
    const schedule = this.#options.schedule ?? ((fn: () => void, ms: number) => {
      const timer = setTimeout(fn, ms)
      return () => clearTimeout(timer)
    })
    this.#cancel = schedule(() => (left > MAX_DELAY_MS ? this.#arm() : this.end({ code: 'TOKEN_EXPIRED', message: 'the sign-in token has expired' })), Math.min(left, MAX_DELAY_MS))
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
