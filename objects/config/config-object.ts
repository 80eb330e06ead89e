/**
 * ConfigObject: one per principal. Its config document is append-only: every
 * PUT is a new version in the object's ledger (see versions.ts). It also keeps
 * the principal's sealed provider keys (credentials.ts), append-only too: each
 * change stores the whole sealed set as a new version; plaintext never reaches
 * storage, and only `apiKeys` (called by the principal's own sessions) opens them.
 * The headers of the principal's MCP servers (bearer tokens) are sealed the same
 * way, bound to `mcp:<server>`, under their own topic; `mcpHeaders` opens them.
 * The principal's OAuth grants for its MCP servers live here too (mcp-grants.ts):
 * one object per principal is where concurrent token refreshes collapse.
 */
import { DurableObject } from 'cloudflare:workers'
import type { Env } from '../core/env.ts'
import type { Json } from '../ledger/json.ts'
import { Ledger } from '../ledger/ledger.ts'
import { migrate, tables } from '../core/migrations.ts'
import { LEDGER_TABLES } from '../ledger/tables.ts'
import { answerFailures, settle } from '../core/rpc.ts'
import { keyedProvider, openKey, type SealedKey, sealKey } from './credentials.ts'
import { type McpAccessToken, McpGrants, type StartInput } from './mcp-grants.ts'
import { type ConfigVersion, currentVersion, putVersion } from './versions.ts'
import { issueSignIn, revokeSignIn, rotateSignIn } from './sign-ins.ts'
import type { CredentialInfo, McpHeaderInfo, McpOAuthInfo } from './views.ts'

export { type ConfigVersion, etagOf } from './versions.ts'

const TOPIC = 'config.document'
const KEYS = 'config.credentials'
const MCP_HEADERS = 'config.mcp-headers'

export type { McpHeaderInfo } from './views.ts'

/** The config object's tables: the embedded ledger's. */
export const TABLES = tables([LEDGER_TABLES])

export class ConfigObject extends DurableObject<Env> {
  protected readonly ledger: Ledger
  /** OAuth grants of the principal's MCP servers. */
  private readonly oauth: McpGrants

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.ledger = new Ledger(ctx.storage)
    this.oauth = new McpGrants({ ledger: this.ledger, secret: env.CREDENTIALS_SECRET, policy: { development: env.NEURON_ENV === 'development' } })
    void ctx.blockConcurrencyWhile(async () => migrate(ctx.storage, TABLES))
  }

  /** Starts one of the principal's lasting shell sign-ins (sign-ins.ts); `current` hashes its first refresh id. */
  issueSignIn(family: string, current: string, expiresAt: number): void {
    issueSignIn(this.ledger, family, current, expiresAt)
  }

  /** Uses a refresh id of a sign-in, replacing it with `next` (sign-ins.ts). */
  rotateSignIn(family: string, presented: string, next: string): { rotated: boolean; replayed?: true } {
    return rotateSignIn(this.ledger, family, presented, next, Date.now())
  }

  /** Ends a sign-in (sign-out). */
  revokeSignIn(family: string, why: string): { revoked: boolean } {
    return revokeSignIn(this.ledger, family, why)
  }

  /** The current version. */
  current(): ConfigVersion {
    return currentVersion(this.ledger, TOPIC)
  }

  /**
   * Stores a new version. `ifMatch` (an ETag, or `*`) must name the current version when given.
   *
   * @example
   * stub.put('user#ada', { instructions: ['Answer in French.'] }, '"v0"')
   */
  put(author: string, input: unknown, ifMatch?: string): ConfigVersion {
    return putVersion(this.ledger, TOPIC, author, input, ifMatch)
  }

  /** Which providers have a stored key, and when it was set. */
  credentials(): CredentialInfo[] {
    return Object.entries(this.sealed()).map(([provider, { setAt }]) => ({ provider, setAt }))
  }

  /**
   * Seals and stores `principal`'s key for `provider` as a new version of the set.
   *
   * @example
   * await stub.setCredential('user#ada', 'anthropic', 'sk-ant-…') // { provider: 'anthropic', setAt: '…' }
   */
  async setCredential(principal: string, provider: string, apiKey: string): Promise<CredentialInfo> {
    const sealed = await sealKey(this.env.CREDENTIALS_SECRET, principal, keyedProvider(provider), apiKey)
    // Read after the await: a concurrent change is kept, not overwritten.
    this.storeSealed(principal, { ...this.sealed(), [provider]: sealed })
    return { provider, setAt: sealed.setAt }
  }

  /** Removes the key for `provider` (a new version without it); a key that is not there is no change. */
  deleteCredential(principal: string, provider: string): { deleted: boolean } {
    const { [keyedProvider(provider)]: gone, ...rest } = this.sealed()
    if (!gone) return { deleted: false }
    this.storeSealed(principal, rest)
    return { deleted: true }
  }

  /** The opened keys, for the principal's own sessions only (never an API answer). */
  async apiKeys(principal: string): Promise<Record<string, string>> {
    const keys: Record<string, string> = {}
    for (const [provider, sealed] of Object.entries(this.sealed())) {
      const key = this.env.CREDENTIALS_SECRET ? await openKey(this.env.CREDENTIALS_SECRET, principal, provider, sealed) : null
      if (key !== null) keys[provider] = key
    }
    return keys
  }

  /** Which MCP servers have stored headers, when they were set, and the headers' names (never their values). */
  mcpHeaderInfo(): McpHeaderInfo[] {
    return Object.entries(this.sealed(MCP_HEADERS)).map(([server, { setAt, names }]) => ({ server, setAt, names: names ?? [] }))
  }

  /**
   * Seals and stores the headers every request to MCP server `server` carries, as a new version of the set.
   *
   * @example
   * await stub.setMcpHeaders('user#ada', 'notes', { authorization: 'Bearer …' })
   */
  async setMcpHeaders(principal: string, server: string, headers: Record<string, string>): Promise<McpHeaderInfo> {
    const sealed = { ...(await sealKey(this.env.CREDENTIALS_SECRET, principal, `mcp:${server}`, JSON.stringify(headers))), names: Object.keys(headers).sort() }
    this.storeSealed(principal, { ...this.sealed(MCP_HEADERS), [server]: sealed }, MCP_HEADERS)
    return { server, setAt: sealed.setAt, names: sealed.names }
  }

  /** Removes the stored headers of `server`; none stored is no change. */
  deleteMcpHeaders(principal: string, server: string): { deleted: boolean } {
    const { [server]: gone, ...rest } = this.sealed(MCP_HEADERS)
    if (!gone) return { deleted: false }
    this.storeSealed(principal, rest, MCP_HEADERS)
    return { deleted: true }
  }

  /** The opened MCP headers by server, for the principal's own sessions only (never an API answer). */
  async mcpHeaders(principal: string): Promise<Record<string, Record<string, string>>> {
    const opened: Record<string, Record<string, string>> = {}
    for (const [server, sealed] of Object.entries(this.sealed(MCP_HEADERS))) {
      const text = this.env.CREDENTIALS_SECRET ? await openKey(this.env.CREDENTIALS_SECRET, principal, `mcp:${server}`, sealed) : null
      if (text !== null) opened[server] = JSON.parse(text) as Record<string, string>
    }
    return opened
  }

  /** Which MCP servers have an OAuth grant or a started authorization (never a token). */
  mcpOAuthInfo(): McpOAuthInfo[] {
    return this.oauth.info()
  }

  /**
   * Starts authorizing MCP server `server`: the URL to send the principal to.
   *
   * @example
   * await stub.startMcpOAuth('user#ada', 'notes', { url: 'https://notes.example/mcp', redirectUri: 'https://neuron.example/v1/oauth/mcp/callback' })
   */
  startMcpOAuth(principal: string, server: string, input: StartInput): Promise<{ server: string; authorizationUrl: string; expiresAt: string }> {
    return this.oauth.start(principal, server, input)
  }

  /** Completes the authorization a callback's opened state names (once). */
  completeMcpOAuth(principal: string, server: string, nonce: string, result: { code: string } | { error: string }): Promise<{ server: string; authorized: true }> {
    return this.oauth.complete(principal, server, nonce, result)
  }

  /** The access token of `server` at `url`, refreshed when due or when `stale` was refused; for the principal's own sessions only. */
  mcpAccessToken(principal: string, server: string, url: string, stale?: string): Promise<McpAccessToken | null> {
    return this.oauth.token(principal, server, url, stale)
  }

  /** Forgets the server's OAuth tokens and client registration. */
  forgetMcpOAuth(principal: string, server: string): { server: string; deleted: boolean } {
    return this.oauth.forget(principal, server)
  }

  /**
   * What the principal's sessions need to reach its MCP servers, in one call: the opened headers, and
   * each server's OAuth grant id (a session reconnects when one changes; the tokens come per request).
   */
  async mcpAccess(principal: string): Promise<{ headers: Record<string, Record<string, string>>; grants: Record<string, string> }> {
    return { headers: settle(await this.mcpHeaders(principal)), grants: this.oauth.grants() }
  }

  private sealed(topic = KEYS): Record<string, SealedKey & { names?: string[] }> {
    const latest = this.ledger.latest(topic)
    return latest ? (this.ledger.payload(latest) as unknown as Record<string, SealedKey & { names?: string[] }>) : {}
  }

  private storeSealed(author: string, set: Record<string, SealedKey>, topic = KEYS): void {
    this.ledger.append({ topic, type: topic, author, payload: set as unknown as Json })
  }
}

// An expected refusal (a replayed state, a refused discovery) is an answer, not a crash to log.
answerFailures(ConfigObject, ['issueSignIn', 'rotateSignIn', 'revokeSignIn', 'current', 'put', 'credentials', 'setCredential', 'deleteCredential', 'apiKeys', 'mcpHeaderInfo', 'setMcpHeaders', 'deleteMcpHeaders', 'mcpHeaders', 'mcpOAuthInfo', 'startMcpOAuth', 'completeMcpOAuth', 'mcpAccessToken', 'forgetMcpOAuth', 'mcpAccess'])
