/**
 * A principal's OAuth grants for its MCP servers, kept by its ConfigObject:
 * per server, the authorization in use (tokens, client registration, where it
 * was discovered) and at most one started authorization waiting for its
 * callback. Like every secret here, tokens, client secrets and PKCE verifiers
 * are sealed (credentials.ts) and bound to the principal and `mcp-oauth:<server>`;
 * only public facts (URLs, the authorization server's metadata, expiry times,
 * the nonce's hash) are in clear. Each change appends the whole set as a new
 * version under one topic, so state stays a fold over the object's ledger.
 *
 * Refreshing happens here, not in sessions: every session of the principal asks
 * this one object, so concurrent refreshes of a server collapse into one (a
 * rotating refresh token is used once), and a refused refresh forgets the tokens.
 */
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js'
import { NeuronError } from '../core/errors.ts'
import { sha256Hex } from '../ledger/hash.ts'
import type { Json } from '../ledger/json.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { authorizationUrlOf, type Discovered, discover, exchange, type OutboundPolicy, refresh, register, type TokenSet } from '../tools/mcp/oauth/flow.ts'
import { newNonce, OAUTH_STATE_TTL_MS, sealState } from '../tools/mcp/oauth/state.ts'
import { openKey, type SealedKey, sealKey } from './credentials.ts'
import type { McpOAuthInfo } from './views.ts'

const TOPIC = 'config.mcp-oauth'
/** An access token this close to its expiry is refreshed before it is handed out. */
export const REFRESH_MARGIN_MS = 60_000

interface Authorization {
  /** The MCP server URL it was authorized for: a token is used for this URL only. */
  url: string
  redirectUri: string
  found: Discovered
  /** Sealed `OAuthClientInformationMixed`: the client id, and its secret when there is one. */
  client: SealedKey
}

interface Active extends Authorization {
  /** Changes with each authorization (not with a refresh): sessions reconnect when it changes. */
  grant: string
  setAt: string
  /** Sealed `TokenSet`. */
  tokens: SealedKey
  expiresAt: number | null
}

interface Pending extends Authorization {
  /** SHA-256 of the state's nonce: the first callback with it consumes it. */
  nonce: string
  expiresAt: number
  /** Sealed PKCE code verifier. */
  verifier: SealedKey
}

type Grants = Record<string, { active?: Active; pending?: Pending }>


/** What a session is handed to call its owner's server. */
export interface McpAccessToken {
  accessToken: string
  expiresAt: number | null
}

/** How a principal starts an authorization. */
export interface StartInput {
  url: string
  redirectUri: string
  clientId?: string
  clientSecret?: string
  scope?: string
}

export interface McpGrantsDeps {
  ledger: Ledger
  secret: string | undefined
  policy: OutboundPolicy
  now?(): number
}

/**
 * @example
 * const grants = new McpGrants({ ledger, secret: env.CREDENTIALS_SECRET, policy: { development: false } })
 * const { authorizationUrl } = await grants.start('user#ada', 'notes', { url, redirectUri })
 * await grants.complete('user#ada', 'notes', nonce, { code })     // from the callback
 * await grants.token('user#ada', 'notes', url)                     // { accessToken, expiresAt }, refreshed when due
 */
export class McpGrants {
  private readonly refreshing = new Map<string, Promise<McpAccessToken | null>>()

  constructor(private readonly deps: McpGrantsDeps) {}

  /** Each server with a grant or a started authorization. */
  info(): McpOAuthInfo[] {
    const now = this.now()
    return Object.entries(this.all()).map(([server, { active, pending }]) => ({
      server,
      url: active?.url ?? pending?.url ?? null,
      authorized: active !== undefined,
      setAt: active?.setAt ?? null,
      expiresAt: active?.expiresAt ? new Date(active.expiresAt).toISOString() : null,
      pending: pending !== undefined && pending.expiresAt > now,
    }))
  }

  /** Server name → grant id, for the servers with usable tokens: a session reconnects when one changes. */
  grants(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [server, { active }] of Object.entries(this.all())) if (active) out[server] = active.grant
    return out
  }

  /**
   * Starts authorizing `server` for `principal`: discovery, client registration (unless a client is
   * given or one registered for this authorization server and callback is kept), PKCE, a sealed
   * single-use state. A started authorization replaces an earlier one that has not come back.
   */
  async start(principal: string, server: string, input: StartInput): Promise<{ server: string; authorizationUrl: string; expiresAt: string }> {
    const { policy } = this.deps
    // Sealed first: a deployment without a secret refuses before anything is fetched.
    const nonce = newNonce()
    const expiresAt = this.now() + OAUTH_STATE_TTL_MS
    const state = await sealState(this.deps.secret, { principal, server, nonce, expiresAt })
    const found = await discover(input.url, policy)
    const previous = this.all()[server]
    const kept = previous?.pending ?? previous?.active
    let client: OAuthClientInformationMixed | null = null
    if (input.clientId) client = { client_id: input.clientId, ...(input.clientSecret ? { client_secret: input.clientSecret } : {}) }
    else if (kept && kept.found.issuer === found.issuer && kept.redirectUri === input.redirectUri) client = await this.open<OAuthClientInformationMixed>(principal, server, kept.client).catch(() => null)
    client ??= await register(found, input.redirectUri, policy)
    const { authorizationUrl, codeVerifier } = await authorizationUrlOf(found, client, { redirectUri: input.redirectUri, state, ...(input.scope ? { scope: input.scope } : {}) })
    const pending: Pending = {
      url: input.url,
      redirectUri: input.redirectUri,
      found,
      client: await this.seal(principal, server, client),
      nonce: sha256Hex(nonce),
      expiresAt,
      verifier: await this.seal(principal, server, codeVerifier),
    }
    // Read after the awaits: a concurrent change to another server is kept.
    this.store(principal, server, { ...this.all()[server], pending })
    return { server, authorizationUrl, expiresAt: new Date(expiresAt).toISOString() }
  }

  /**
   * Completes the authorization a callback's state names. The pending authorization is consumed
   * before anything is awaited, so a state works once; a refused exchange stores nothing.
   */
  async complete(principal: string, server: string, nonce: string, result: { code: string } | { error: string }): Promise<{ server: string; authorized: true }> {
    const entry = this.all()[server]
    const pending = entry?.pending
    if (!pending || pending.nonce !== sha256Hex(nonce)) {
      throw new NeuronError('MCP_OAUTH_STATE_INVALID', `no authorization of ${server} waits for this state: it was used, replaced, or never started`, { status: 400, details: { server } })
    }
    const { pending: _used, ...rest } = entry
    this.store(principal, server, rest)
    if (pending.expiresAt <= this.now()) throw new NeuronError('MCP_OAUTH_STATE_EXPIRED', `this authorization of ${server} expired; start it again`, { status: 400, details: { server } })
    if ('error' in result) {
      throw new NeuronError('MCP_OAUTH_DENIED', `the authorization server did not authorize ${server}: ${result.error.slice(0, 200)}`, { status: 400, details: { server, error: result.error.slice(0, 200) } })
    }
    const client = await this.open<OAuthClientInformationMixed>(principal, server, pending.client)
    const codeVerifier = await this.open<string>(principal, server, pending.verifier)
    const tokens = await exchange(pending.found, client, { code: result.code, codeVerifier, redirectUri: pending.redirectUri }, this.deps.policy, this.now())
    const active: Active = {
      url: pending.url,
      redirectUri: pending.redirectUri,
      found: pending.found,
      client: pending.client,
      grant: crypto.randomUUID(),
      setAt: new Date(this.now()).toISOString(),
      tokens: await this.seal(principal, server, tokens),
      expiresAt: tokens.expiresAt,
    }
    this.store(principal, server, { ...this.all()[server], active })
    return { server, authorized: true }
  }

  /**
   * The access token for `server` at `url`, refreshed first when it is due or when the caller says
   * the server refused `stale`; null when there is none (authorize first). Concurrent refreshes of
   * one server share one request.
   */
  async token(principal: string, server: string, url: string, stale?: string): Promise<McpAccessToken | null> {
    const active = this.all()[server]?.active
    if (!active || active.url !== url) return null
    const tokens = await this.open<TokenSet>(principal, server, active.tokens)
    const due = active.expiresAt !== null && active.expiresAt - REFRESH_MARGIN_MS <= this.now()
    if (!due && tokens.accessToken !== stale) return { accessToken: tokens.accessToken, expiresAt: active.expiresAt }
    let running = this.refreshing.get(server)
    if (!running) {
      running = this.refreshed(principal, server, active, tokens).finally(() => this.refreshing.delete(server))
      this.refreshing.set(server, running)
    }
    return running
  }

  /** Forgets the server's tokens, client registration and any started authorization. */
  forget(principal: string, server: string): { server: string; deleted: boolean } {
    if (!this.all()[server]) return { server, deleted: false }
    this.store(principal, server, undefined)
    this.refreshing.delete(server)
    return { server, deleted: true }
  }

  private async refreshed(principal: string, server: string, active: Active, tokens: TokenSet): Promise<McpAccessToken | null> {
    const client = await this.open<OAuthClientInformationMixed>(principal, server, active.client)
    const fresh = tokens.refreshToken ? await refresh(active.found, client, tokens.refreshToken, this.deps.policy, this.now()) : null
    const current = this.all()[server]
    // Forgotten or authorized again meanwhile: this refresh's outcome is not the grant's any more.
    if (current?.active?.grant !== active.grant) return null
    if (!fresh) {
      console.warn('mcp: the authorization server refused the refresh; the server needs authorization again', { server })
      const { active: _refused, ...rest } = current
      this.store(principal, server, Object.keys(rest).length ? rest : undefined)
      return null
    }
    const sealed = await this.seal(principal, server, { ...fresh, refreshToken: fresh.refreshToken ?? tokens.refreshToken })
    const latest = this.all()[server]
    if (latest?.active?.grant !== active.grant) return null
    this.store(principal, server, { ...latest, active: { ...latest.active, tokens: sealed, expiresAt: fresh.expiresAt } })
    return { accessToken: fresh.accessToken, expiresAt: fresh.expiresAt }
  }

  private all(): Grants {
    const latest = this.deps.ledger.latest(TOPIC)
    return latest ? (this.deps.ledger.payload(latest) as unknown as Grants) : {}
  }

  private store(author: string, server: string, entry: Grants[string] | undefined): void {
    const { [server]: _old, ...rest } = this.all()
    const next: Grants = entry && (entry.active || entry.pending) ? { ...rest, [server]: entry } : rest
    this.deps.ledger.append({ topic: TOPIC, type: TOPIC, author, payload: next as unknown as Json })
  }

  private seal(principal: string, server: string, value: unknown): Promise<SealedKey> {
    return sealKey(this.deps.secret, principal, `mcp-oauth:${server}`, JSON.stringify(value))
  }

  private async open<T>(principal: string, server: string, sealed: SealedKey): Promise<T> {
    const text = await openKey(this.deps.secret, principal, `mcp-oauth:${server}`, sealed)
    if (text === null) throw new NeuronError('MCP_AUTH_REQUIRED', `the stored authorization of ${server} no longer opens (the deployment secret changed): authorize it again`, { status: 502, details: { server } })
    return JSON.parse(text) as T
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now()
  }
}
