/**
 * Signing the shell in: a bearer token for the API, checked with `GET /v1/me`,
 * then used by the typed client (client/) the CLI uses too. On a loopback
 * `npm start` one click fetches the local dev identity (`POST /v1/dev/token`);
 * deployed, the person pastes a JWT from their identity provider. Sockets never
 * carry the token: each (re)connect mints a one-use ticket. The token lives in
 * this tab's sessionStorage on the trusted origin, which app frames (opaque
 * origins) cannot read. A sign-in lasts until the token expires or the server
 * refuses it (authorization.ts): then `onEnded` hears why, once.
 *
 * @example
 * const connection = await Connection.devSignIn(location.origin, (why) => signOut(why))
 * const socket = connection.client.socket(sessionId)
 */
import { NeuronClient } from '../../client/index.ts'
import { Authorization, type EndedReason } from './authorization.ts'

const STORAGE_KEY = 'neuron.shell.token'
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
  static async devSignIn(origin: string, onEnded: (reason: EndedReason) => void = () => {}): Promise<Connection> {
    const res = await fetch(`${origin}/v1/dev/token`, { method: 'POST', headers: { 'x-neuron-dev-login': '1' } })
    const body = (await res.json()) as { token?: string; error?: { code: string; message: string } }
    if (!res.ok || !body.token) throw new Error(`${body.error?.code ?? res.status}: ${body.error?.message ?? 'sign-in refused'}`)
    return Connection.withToken(origin, body.token, onEnded)
  }

  /**
   * A bearer JWT the person pasted (or one kept from earlier in this tab), checked with GET /v1/me.
   * `onEnded` is called once when the sign-in ends on its own: the token expires or is refused.
   */
  static async withToken(origin: string, token: string, onEnded: (reason: EndedReason) => void = () => {}): Promise<Connection> {
    let connection: Connection | undefined
    // A refusal while signing in is the sign-in's failure, not an end: it ends only once it began.
    const authorization = new Authorization(token.trim(), { onEnded: (reason) => connection && onEnded(reason) })
    const client = new NeuronClient({ url: origin, token: token.trim(), fetch: authorization.fetch })
    const me = await client.me()
    if (authorization.ended) throw new Error(`${authorization.ended.code}: ${authorization.ended.message}`)
    sessionStorage.setItem(STORAGE_KEY, token.trim())
    return (connection = new Connection(client, me, authorization))
  }

  /** The token kept from earlier in this tab, if any. */
  static remembered(): string | null {
    return sessionStorage.getItem(STORAGE_KEY)
  }

  /** Forgets the token (sign-out). */
  static forget(): void {
    sessionStorage.removeItem(STORAGE_KEY)
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
