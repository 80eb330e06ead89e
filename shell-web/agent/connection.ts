/**
 * Signing the shell in: a bearer token for the API, checked with `GET /v1/me`,
 * then used by the typed client (client/) the CLI uses too. On a loopback
 * `npm start` one click fetches the local dev identity (`POST /v1/dev/token`);
 * deployed, the person pastes a JWT from their identity provider. Sockets never
 * carry the token: each (re)connect mints a one-use ticket.
 *
 * The sign-in lasts (docs/shell.md): once the token is checked, `POST /v1/auth/sign-in` sets a
 * refresh cookie the page cannot read (HttpOnly, sent to the refresh route only). The page keeps
 * only short-lived access tokens, in memory: after a reload `restore` asks `/v1/auth/refresh` for
 * one, and the authorization renews it before it expires. localStorage keeps only a mark that a
 * sign-in may be waiting, so a page never signed in does not ask. A sign-in ends when the
 * server refuses its token or its renewal (authorization.ts): then `onEnded` hears why, once.
 *
 * @example
 * const connection = await Connection.devSignIn(location.origin, (why) => signOut(why))
 * const socket = connection.client.socket(sessionId)
 */
import { NeuronClient } from '../../client/index.ts'
import { Authorization, type EndedReason } from './authorization.ts'

/** Set while a lasting sign-in may be waiting in the refresh cookie (the cookie itself is unreadable here). */
const STORAGE_KEY = 'neuron.shell.signed-in'
const SHELL_HEADERS = { 'x-neuron-shell': '1' }

/** The last sign-out's request, which clears the cookie. */
let signingOut: Promise<unknown> = Promise.resolve()

/** A refusal from /v1/auth, with its code. */
async function refusal(res: Response): Promise<Error & { code: string }> {
  const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null
  return Object.assign(new Error(body?.error?.message ?? `HTTP ${res.status}`), { code: body?.error?.code ?? `HTTP_${res.status}` })
}

/** A new access token from the refresh cookie (`POST /v1/auth/refresh`), which rotates it. */
async function refreshed(origin: string): Promise<string> {
  const res = await fetch(`${origin}/v1/auth/refresh`, { method: 'POST', headers: SHELL_HEADERS, credentials: 'same-origin' })
  if (!res.ok) throw await refusal(res)
  return ((await res.json()) as { token: string }).token
}
/** The panel lists at most this many sessions (the newest). */
const MAX_LISTED = 200

export interface Me {
  id: string
  subject: string
  via: string
}

export class Connection {
  private constructor(
    readonly client: NeuronClient,
    readonly me: Me,
    /** How long the sign-in lasts; `end` it to sign out for a reason. */
    readonly authorization: Authorization,
  ) {}

  /** The one-click local dev identity (only a loopback `wrangler dev` gives one: 403 DEV_LOGIN_REFUSED elsewhere). */
  static async devSignIn(origin: string, onEnded: (reason: EndedReason) => void = () => {}, options: { remember?: boolean } = {}): Promise<Connection> {
    const res = await fetch(`${origin}/v1/dev/token`, { method: 'POST', headers: { 'x-neuron-dev-login': '1' } })
    const body = (await res.json()) as { token?: string; error?: { code: string; message: string } }
    if (!res.ok || !body.token) throw new Error(`${body.error?.code ?? res.status}: ${body.error?.message ?? 'sign-in refused'}`)
    return Connection.withToken(origin, body.token, onEnded, options)
  }

  /**
   * A bearer JWT the person pasted, checked with GET /v1/me, then made lasting (unless
   * `remember: false`). `onEnded` is called once when the sign-in ends on its own: the token (or,
   * lasting, its renewal) expires or is refused.
   */
  static async withToken(origin: string, token: string, onEnded: (reason: EndedReason) => void = () => {}, options: { remember?: boolean } = {}): Promise<Connection> {
    const connection = await Connection.#check(origin, token.trim(), onEnded)
    // Not kept: the sign-in lasts as long as this page and this token.
    if (options.remember === false) return connection
    await signingOut // a sign-out's cleared cookie must not land after the new one
    // The token is good: make the sign-in last past a reload. A server that cannot (no ticket secret) keeps it for this page.
    const res = await fetch(`${origin}/v1/auth/sign-in`, { method: 'POST', headers: { ...SHELL_HEADERS, authorization: `Bearer ${token.trim()}` }, credentials: 'same-origin' })
    if (res.ok) {
      localStorage.setItem(STORAGE_KEY, '1')
      // From now on the sign-in renews itself from the cookie rather than ending with the pasted token.
      connection.authorization.renewWith(() => refreshed(origin))
    } else console.warn('the sign-in will not last past this page', await refusal(res))
    return connection
  }

  /** After a reload: an access token from the refresh cookie; throws (with the server's code) when there is no lasting sign-in. */
  static async restore(origin: string, onEnded: (reason: EndedReason) => void = () => {}): Promise<Connection> {
    return Connection.#check(origin, await refreshed(origin), onEnded, () => refreshed(origin))
  }

  static async #check(origin: string, token: string, onEnded: (reason: EndedReason) => void, renew?: () => Promise<string>): Promise<Connection> {
    let connection: Connection | undefined
    // A refusal while signing in is the sign-in's failure, not an end: it ends only once it began.
    const authorization = new Authorization(token, { onEnded: (reason) => connection && onEnded(reason), ...(renew ? { renew } : {}) })
    const client = new NeuronClient({ url: origin, token, fetch: authorization.fetch })
    const me = await client.me()
    if (authorization.ended) throw new Error(`${authorization.ended.code}: ${authorization.ended.message}`)
    return (connection = new Connection(client, me, authorization))
  }

  /** Whether a lasting sign-in may be waiting (this browser signed in and did not sign out). */
  static remembered(): boolean {
    return localStorage.getItem(STORAGE_KEY) === '1'
  }

  /**
   * Signs out for good: the refresh cookie's sign-in is revoked and the cookie cleared
   * (`DELETE /v1/auth/refresh`); `revoke: false` only forgets that one may be waiting (it was refused).
   */
  static forget(options: { revoke?: boolean } = {}): void {
    localStorage.removeItem(STORAGE_KEY)
    if (options.revoke !== false) signingOut = fetch(`${location.origin}/v1/auth/refresh`, { method: 'DELETE', headers: SHELL_HEADERS, credentials: 'same-origin' }).catch(() => {})
  }

  /** This identity's sessions (`GET /v1/sessions`), newest first, at most 200. */
  async sessions(): Promise<{ id: string; title: string | null }[]> {
    const listed: { id: string; title: string | null }[] = []
    for await (const session of this.client.allSessions()) {
      listed.push({ id: session.id, title: session.title ?? null })
      if (listed.length > MAX_LISTED) listed.shift()
    }
    return listed.reverse()
  }
}
