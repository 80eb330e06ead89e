/**
 * The caller's remote MCP servers, beyond their entries in the config document:
 * the headers every request to a server carries (write-only: a listing names
 * them, never their values) and OAuth. `authorize` answers the URL to open in a
 * browser; the authorization server sends the browser back to Neuron, which
 * keeps the tokens sealed. Nothing here ever returns a token.
 */
import type { Http } from './http.ts'
import type { McpAuthorizeInput, McpHeaderEntry, McpOAuthEntry } from './types.ts'

export class McpClient {
  readonly #http: Http

  constructor(http: Http) {
    this.#http = http
  }

  /** Which servers have stored headers, when they were set, and the header names. */
  async headers(): Promise<McpHeaderEntry[]> {
    return (await this.#http.json<{ items: McpHeaderEntry[] }>('GET', '/v1/config/mcp')).items
  }

  /** Stores (replaces) the headers every request to `server` carries; they are never readable again. */
  setHeaders(server: string, headers: Record<string, string>): Promise<McpHeaderEntry> {
    return this.#http.json('PUT', `/v1/config/mcp/${encodeURIComponent(server)}/headers`, { headers })
  }

  deleteHeaders(server: string): Promise<{ server: string; deleted: boolean }> {
    return this.#http.json('DELETE', `/v1/config/mcp/${encodeURIComponent(server)}/headers`)
  }

  /** Which servers have an OAuth grant or a started authorization, and when their access token expires. */
  async authorizations(): Promise<McpOAuthEntry[]> {
    return (await this.#http.json<{ items: McpOAuthEntry[] }>('GET', '/v1/config/mcp/oauth')).items
  }

  /**
   * Starts authorizing `server` (listed in your config, or at `input.url`). Open the answered URL in
   * a browser within its expiry; once the authorization server sends you back, your sessions use it.
   *
   * @example
   * const { authorizationUrl } = await neuron.mcp.authorize('notes')
   * // open authorizationUrl; then neuron.mcp.authorizations() shows notes as authorized
   */
  authorize(server: string, input: McpAuthorizeInput = {}): Promise<{ server: string; authorizationUrl: string; expiresAt: string }> {
    return this.#http.json('POST', `/v1/config/mcp/${encodeURIComponent(server)}/oauth`, input)
  }

  /** Forgets the server's OAuth tokens and client registration. */
  forget(server: string): Promise<{ server: string; deleted: boolean }> {
    return this.#http.json('DELETE', `/v1/config/mcp/${encodeURIComponent(server)}/oauth`)
  }
}
