/**
 * The OAuth access token one MCP connection sends. The principal's config
 * object holds the grant and refreshes it; this keeps the token it was handed
 * until it is due, so a session asks once per token, not once per request.
 * Concurrent askers share one question, and "the server refused this token"
 * asks for a fresh one at most once per refused token.
 */

/** A token as the config object hands it out. */
export interface HandedToken {
  accessToken: string
  /** Epoch milliseconds, null when the server gave no lifetime. */
  expiresAt: number | null
}

/** Asks the owner's config object: the current token, refreshed first when `stale` was refused or it is due. */
export type AskToken = (stale?: string) => Promise<HandedToken | null>

/** A token this close to its expiry is asked for again (the config object refreshes a minute ahead). */
const DUE_MARGIN_MS = 30_000

/**
 * @example
 * const bearer = new Bearer((stale) => config.mcpAccessToken(owner, 'notes', url, stale))
 * await bearer.token()          // 'eyJ…' or null (no grant: the server answers 401)
 * await bearer.refused('eyJ…')  // a refreshed token, or null (authorize again)
 */
export class Bearer {
  private held: HandedToken | null = null
  private asking: Promise<HandedToken | null> | null = null

  constructor(
    private readonly ask: AskToken,
    private readonly now: () => number = Date.now,
  ) {}

  /** The token to send now, or null when the owner has no grant for this server. */
  async token(): Promise<string | null> {
    const held = this.held
    if (held && (held.expiresAt === null || held.expiresAt - DUE_MARGIN_MS > this.now())) return held.accessToken
    return (await this.fetch())?.accessToken ?? null
  }

  /** The server refused `stale`: a different token to try once, or null. */
  async refused(stale: string): Promise<string | null> {
    if (this.held && this.held.accessToken !== stale) return this.held.accessToken
    const fresh = await this.fetch(stale)
    return fresh && fresh.accessToken !== stale ? fresh.accessToken : null
  }

  private fetch(stale?: string): Promise<HandedToken | null> {
    this.asking ??= this.ask(stale)
      .then((token) => (this.held = token))
      .finally(() => (this.asking = null))
    return this.asking
  }
}
