/**
 * An MCP server that needs OAuth, built from the official SDK's auth parts, for the MCP
 * authorization tests: an Express app on 127.0.0.1 that is both the authorization server
 * (`mcpAuthRouter`: metadata, dynamic client registration, /authorize, /token) and the protected
 * resource (`/mcp`, behind `requireBearerAuth`, serving the same tools as test/support/mcp-server.ts,
 * stateless JSON). Its provider keeps everything in memory and approves at once: /authorize
 * redirects straight to the client's redirect URI with a code, so a test follows the authorization
 * URL with fetch. Refresh tokens rotate (each works once).
 *
 * Test controls: `POST /__expire` (every access token issued so far is refused from now on),
 * `POST /__lifetime?s=N` (tokens issued from now on say they live N seconds), `POST /__revoke`
 * (every access and refresh token is refused), `GET /__stats` (counts; the last `resource`).
 */
import { randomUUID } from 'node:crypto'
import type { Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express, { type Response } from 'express'
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js'
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js'
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { toolServer } from './mcp-server.ts'

export interface OAuthStats {
  registrations: number
  authorizations: number
  exchanges: number
  refreshes: number
  refusedRefreshes: number
  /** Requests to /mcp refused with 401. */
  unauthorized: number
  /** Requests to /mcp let through. */
  authorized: number
  lastResource: string | null
}

export interface TestOAuthMcpServer {
  /** e.g. `http://127.0.0.1:40123`; the MCP endpoint is `${url}/mcp`. */
  url: string
  stats(): OAuthStats
  close(): Promise<void>
}

interface Grant {
  clientId: string
  scopes: string[]
  resource?: URL
}

/** Approves every authorization at once, keeps everything in memory. */
class AutoApprove implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>()
  readonly clientsStore = {
    getClient: async (id: string) => this.clients.get(id),
    registerClient: async (client: OAuthClientInformationFull) => {
      this.stats.registrations++
      this.clients.set(client.client_id, client)
      return client
    },
  }
  readonly codes = new Map<string, { clientId: string; params: AuthorizationParams }>()
  readonly access = new Map<string, Grant & { expiresAt: number }>()
  readonly refresh = new Map<string, Grant>()
  lifetimeS = 3600
  readonly stats: OAuthStats = { registrations: 0, authorizations: 0, exchanges: 0, refreshes: 0, refusedRefreshes: 0, unauthorized: 0, authorized: 0, lastResource: null }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    this.stats.authorizations++
    const code = randomUUID()
    this.codes.set(code, { clientId: client.client_id, params })
    const target = new URL(params.redirectUri)
    target.searchParams.set('code', code)
    if (params.state !== undefined) target.searchParams.set('state', params.state)
    res.redirect(target.href)
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code)
    if (!entry) throw new Error('unknown authorization code')
    return entry.params.codeChallenge
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code)
    if (!entry || entry.clientId !== client.client_id) throw new Error('unknown authorization code')
    this.codes.delete(code)
    this.stats.exchanges++
    this.stats.lastResource = entry.params.resource?.href ?? null
    return this.issue({ clientId: client.client_id, scopes: entry.params.scopes ?? [], ...(entry.params.resource ? { resource: entry.params.resource } : {}) })
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const grant = this.refresh.get(refreshToken)
    if (!grant || grant.clientId !== client.client_id) {
      this.stats.refusedRefreshes++
      // The SDK's token handler answers an InvalidGrantError as `invalid_grant`.
      const { InvalidGrantError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js')
      throw new InvalidGrantError('refresh token is not valid')
    }
    this.refresh.delete(refreshToken)
    this.stats.refreshes++
    return this.issue(grant)
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token)
    if (!grant || grant.expiresAt <= Date.now()) {
      const { InvalidTokenError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js')
      throw new InvalidTokenError('the access token is not valid')
    }
    return { token, clientId: grant.clientId, scopes: grant.scopes, expiresAt: Math.floor(grant.expiresAt / 1000) + 3600, ...(grant.resource ? { resource: grant.resource } : {}) }
  }

  private issue(grant: Grant): OAuthTokens {
    const accessToken = `at-${randomUUID()}`
    const refreshToken = `rt-${randomUUID()}`
    // The server honours a token for an hour; the lifetime it states can be shorter, to test refresh before use.
    this.access.set(accessToken, { ...grant, expiresAt: Date.now() + 3600_000 })
    this.refresh.set(refreshToken, grant)
    return { access_token: accessToken, token_type: 'bearer', expires_in: this.lifetimeS, refresh_token: refreshToken, scope: grant.scopes.join(' ') }
  }
}

/**
 * @example
 * const oauth = await startOAuthMcpServer()
 * // config: { mcpServers: [{ name: 'secured', url: `${oauth.url}/mcp` }] }
 */
export async function startOAuthMcpServer(port = 0): Promise<TestOAuthMcpServer> {
  const provider = new AutoApprove()
  const app = express()
  const http: HttpServer = await new Promise((resolve) => {
    const server = app.listen(port, '127.0.0.1', () => resolve(server))
  })
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const resource = new URL('/mcp', base)
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: resource,
      scopesSupported: ['mcp:tools'],
      resourceName: 'neuron test MCP server',
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
    }),
  )
  app.post('/__expire', (_req, res) => {
    for (const grant of provider.access.values()) grant.expiresAt = 0
    res.json({ ok: true })
  })
  app.post('/__lifetime', (req, res) => {
    provider.lifetimeS = Number(req.query.s)
    res.json({ ok: true })
  })
  app.post('/__revoke', (_req, res) => {
    provider.access.clear()
    provider.refresh.clear()
    res.json({ ok: true })
  })
  app.get('/__stats', (_req, res) => void res.json(provider.stats))
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource), expectedResource: resource })
  app.post(
    '/mcp',
    (req, res, next) => {
      res.on('finish', () => (res.statusCode === 401 ? provider.stats.unauthorized++ : provider.stats.authorized++))
      next()
    },
    bearer,
    express.json(),
    async (req, res) => {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await toolServer().connect(transport)
      res.on('close', () => void transport.close())
      await transport.handleRequest(req, res, req.body)
    },
  )
  app.all('/mcp', (_req, res) => void res.status(405).set('allow', 'POST').end())
  return {
    url: base,
    stats: () => ({ ...provider.stats }),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startOAuthMcpServer(Number(process.argv[2] ?? 0))
  console.log(server.url)
}
