/**
 * The steps of the MCP authorization flow as a server-side client speaks them,
 * each one of the official SDK's client auth functions (they run in workerd):
 * discovery of the protected resource's metadata and its authorization
 * server's (`discoverOAuthServerInfo`), dynamic client registration
 * (`registerClient`), the authorization URL with PKCE S256, `state` and the
 * `resource` parameter (`startAuthorization`), the code exchange
 * (`exchangeAuthorization`) and the refresh (`refreshAuthorization`). Every
 * URL fetched passes the same outbound policy as the MCP server itself
 * (outbound.ts) and is bounded in time; every failure is a coded `NeuronError`.
 * No storage here: the principal's config object keeps what these return.
 */
import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { OAuthError, ServerError, TemporarilyUnavailableError } from '@modelcontextprotocol/sdk/server/auth/errors.js'
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js'
import { NeuronError } from '../../../core/errors.ts'
import { outboundFetch } from '../../../outbound/fetch.ts'
import { checkOutboundUrl, type OutboundPolicy } from '../../../outbound/policy.ts'
import { MAX_MCP_OAUTH_RESPONSE_BYTES } from '../../../core/limits.ts'

/** How long one request to an authorization server or a metadata document may take. */
export const OAUTH_FETCH_TIMEOUT_MS = 10_000

export type { OutboundPolicy }

/** Where and how a server is authorized: public facts, stored in clear. */
export interface Discovered {
  /** The authorization server's issuer URL. */
  issuer: string
  metadata: AuthorizationServerMetadata
  /** The `resource` parameter: the protected resource's own identifier. */
  resource: string
  /** The scopes the protected resource says it supports, space-separated, when it says. */
  scope?: string
}

/** Tokens as kept (sealed): `expiresAt` in epoch milliseconds, null when the server gave no lifetime. */
export interface TokenSet {
  accessToken: string
  refreshToken?: string
  expiresAt: number | null
}

/**
 * Finds the authorization server of the MCP server at `url` and its metadata.
 *
 * @example
 * const found = await discover('https://notes.example/mcp', { development: false })
 * found.metadata.authorization_endpoint // 'https://auth.example/authorize'
 */
export async function discover(url: string, policy: OutboundPolicy): Promise<Discovered> {
  const fetchFn = policed(policy)
  let info
  try {
    info = await discoverOAuthServerInfo(checkOutboundUrl(url, policy, 'MCP_URL_REFUSED'), { fetchFn })
  } catch (error) {
    throw coded(error, 'MCP_OAUTH_DISCOVERY_FAILED', `no authorization server could be discovered for ${url}`)
  }
  if (!info.authorizationServerMetadata) {
    throw new NeuronError('MCP_OAUTH_DISCOVERY_FAILED', `${info.authorizationServerUrl} publishes no authorization server metadata`, { status: 502, details: { url } })
  }
  const prm = info.resourceMetadata
  // The protected resource names itself; it must be this server's URL or an origin/path prefix of it.
  if (prm && !checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(url), configuredResource: prm.resource })) {
    throw new NeuronError('MCP_OAUTH_DISCOVERY_FAILED', `the protected resource ${prm.resource} does not match ${url}`, { status: 502, details: { url } })
  }
  return {
    issuer: info.authorizationServerUrl,
    metadata: info.authorizationServerMetadata as AuthorizationServerMetadata,
    resource: prm ? prm.resource : resourceUrlFromServerUrl(url).href,
    ...(prm?.scopes_supported?.length ? { scope: prm.scopes_supported.join(' ') } : {}),
  }
}

/**
 * Registers Neuron as a client of the authorization server (RFC 7591), or `MCP_OAUTH_CLIENT_REQUIRED`
 * when the server offers no registration: then a client id (and secret) must be configured.
 *
 * @example
 * const client = await register(found, 'https://neuron.example/v1/oauth/mcp/callback', policy)
 */
export async function register(found: Discovered, redirectUri: string, policy: OutboundPolicy): Promise<OAuthClientInformationMixed> {
  const { metadata } = found
  if (!metadata.registration_endpoint) {
    throw new NeuronError('MCP_OAUTH_CLIENT_REQUIRED', `${found.issuer} does not register clients dynamically: pass the clientId (and clientSecret) it issued you`, {
      status: 400,
      details: { issuer: found.issuer },
    })
  }
  const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic']
  // A server-side client can keep a secret, so it asks for one when the server issues them.
  const method = ['client_secret_post', 'client_secret_basic'].find((m) => methods.includes(m)) ?? 'none'
  try {
    return await registerClient(found.issuer, {
      metadata,
      clientMetadata: { client_name: 'Neuron', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: method },
      fetchFn: policed(policy),
    })
  } catch (error) {
    throw coded(error, 'MCP_OAUTH_REGISTRATION_FAILED', `${found.issuer} refused to register Neuron as a client`)
  }
}

/**
 * The authorization URL to send the principal to, and the PKCE verifier to keep for the exchange.
 *
 * @example
 * const { authorizationUrl, codeVerifier } = await authorizationUrlOf(found, client, { redirectUri, state })
 */
export async function authorizationUrlOf(
  found: Discovered,
  client: OAuthClientInformationMixed,
  options: { redirectUri: string; state: string; scope?: string },
): Promise<{ authorizationUrl: string; codeVerifier: string }> {
  const scope = options.scope ?? found.scope
  try {
    const { authorizationUrl, codeVerifier } = await startAuthorization(found.issuer, {
      metadata: found.metadata,
      clientInformation: client,
      redirectUrl: options.redirectUri,
      state: options.state,
      resource: found.resource,
      ...(scope ? { scope } : {}),
    })
    return { authorizationUrl: authorizationUrl.href, codeVerifier }
  } catch (error) {
    throw coded(error, 'MCP_OAUTH_UNSUPPORTED', `${found.issuer} does not offer the authorization code flow with PKCE S256`)
  }
}

/**
 * Exchanges the code the callback brought for tokens; `MCP_OAUTH_EXCHANGE_FAILED` when the server refuses.
 *
 * @example
 * const tokens = await exchange(found, client, { code, codeVerifier, redirectUri }, policy)
 */
export async function exchange(
  found: Discovered,
  client: OAuthClientInformationMixed,
  input: { code: string; codeVerifier: string; redirectUri: string },
  policy: OutboundPolicy,
  now = Date.now(),
): Promise<TokenSet> {
  try {
    const tokens = await exchangeAuthorization(found.issuer, {
      metadata: found.metadata,
      clientInformation: client,
      authorizationCode: input.code,
      codeVerifier: input.codeVerifier,
      redirectUri: input.redirectUri,
      resource: found.resource,
      fetchFn: policed(policy),
    })
    return tokenSet(tokens, now)
  } catch (error) {
    throw coded(error, 'MCP_OAUTH_EXCHANGE_FAILED', `${found.issuer} did not exchange the authorization code`)
  }
}

/**
 * A refreshed token set, or null when the authorization server refused the grant (the principal must
 * authorize again). A server that cannot be reached throws `MCP_UNAVAILABLE`: the tokens stay.
 *
 * @example
 * const fresh = await refresh(found, client, tokens.refreshToken, policy) // null: authorize again
 */
export async function refresh(found: Discovered, client: OAuthClientInformationMixed, refreshToken: string, policy: OutboundPolicy, now = Date.now()): Promise<TokenSet | null> {
  try {
    const tokens = await refreshAuthorization(found.issuer, { metadata: found.metadata, clientInformation: client, refreshToken, resource: found.resource, fetchFn: policed(policy) })
    return tokenSet(tokens, now)
  } catch (error) {
    if (error instanceof OAuthError && !(error instanceof ServerError) && !(error instanceof TemporarilyUnavailableError)) return null
    throw coded(error, 'MCP_UNAVAILABLE', `${found.issuer} could not refresh the token`)
  }
}

function tokenSet(tokens: OAuthTokens, now: number): TokenSet {
  return {
    accessToken: tokens.access_token,
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    expiresAt: typeof tokens.expires_in === 'number' ? now + tokens.expires_in * 1000 : null,
  }
}

/** The fetch every step uses: the outbound fetch (policy on every hop, bounded bodies), and a time bound. */
function policed(policy: OutboundPolicy): typeof fetch {
  const send = outboundFetch(policy, { refused: 'MCP_URL_REFUSED', tooLarge: 'MCP_OAUTH_RESPONSE_TOO_LARGE', maxBytes: MAX_MCP_OAUTH_RESPONSE_BYTES })
  return (input, init) => send(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(OAUTH_FETCH_TIMEOUT_MS) })
}

function coded(error: unknown, code: string, message: string): NeuronError {
  if (error instanceof NeuronError) return error
  const reason = error instanceof OAuthError ? `${error.errorCode}: ${error.message}` : error instanceof Error ? error.message : String(error)
  return new NeuronError(code, `${message} (${reason.slice(0, 300)})`, {
    status: code === 'MCP_OAUTH_CLIENT_REQUIRED' ? 400 : 502,
    details: error instanceof OAuthError ? { error: error.errorCode } : {},
    cause: error,
  })
}
