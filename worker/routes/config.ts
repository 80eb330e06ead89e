/**
 * `/v1/config`: the caller's config document (one per principal, append-only
 * versions, ETag / If-Match), the JSON Schema it follows, and the caller's
 * stored provider keys, which are write-only: a listing says which providers
 * have one and when it was set, never the key. The headers of the caller's MCP
 * servers (bearer tokens) are write-only the same way, by server name, and so
 * are their OAuth grants: the caller starts an authorization here and gets the
 * URL to open; the code comes back to `/v1/oauth/mcp/callback` (routes/oauth.ts).
 */
import { type ConfigObject, etagOf } from '../../objects/config/config-object.ts'
import { ConfigSchema, configJsonSchema } from '../../objects/config/schema.ts'
import { CredentialBody, keyedProvider } from '../../objects/config/credentials.ts'
import { settled } from '../../objects/core/rpc.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { parseJson } from '../../objects/core/parse-json.ts'
import { checkMcpHeaderNames, McpHeadersBody, McpOAuthStartBody, McpServerName, mcpServersOf } from '../../objects/tools/mcp/servers.ts'
import { MAX_BODY_BYTES, MAX_CREDENTIAL_BYTES, MAX_MCP_HEADERS_BYTES, MAX_MCP_OAUTH_BYTES } from '../../objects/core/limits.ts'
import { callerOf } from '../caller.ts'
import { exists, register } from '../../objects/directory/keys.ts'
import { readJson } from '../read-json.ts'
import type { Env } from '../../objects/core/env.ts'
import { REQUEST_ERRORS, BODY_ERRORS } from '../openapi/body-errors.ts'
import * as R from '../openapi/responses.ts'
import { mount, route } from '../route.ts'
import { CALLBACK_PATH } from './oauth.ts'

/**
 * The `/v1/config` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * CONFIG_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const CONFIG_ROUTES = [
  route({
    method: 'get',
    path: '/v1/config',
    operationId: 'getConfig',
    summary: "The caller's config document, its version and ETag (version 0: never written)",
    auth: 'bearer',
    ok: { 200: 'the current version' },
    response: R.ConfigVersion,
    errors: [],
    handler: async (c) => {
      const id = callerOf(c).id
      // Reads create no storage: a principal that never wrote a config has the empty version 0.
      const current = await readConfig(c.env, id, (config) => config.current(), { version: 0, etag: etagOf(0), document: {} })
      c.header('etag', current.etag)
      return c.json(current)
    },
  }),
  route({
    method: 'put',
    path: '/v1/config',
    operationId: 'putConfig',
    summary: 'Store a new version of the config document; If-Match must name the current ETag when given',
    auth: 'bearer',
    body: ConfigSchema,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'the stored version, with its ETag' },
    response: R.ConfigVersion,
    errors: [...BODY_ERRORS, 'INVALID_CONFIG', 'CONFIG_VERSION_MISMATCH'],
    handler: async (c) => {
      const caller = callerOf(c)
      const body = await readJson(c.req.raw)
      // Checked here, then registered before the object writes: a request never writes and then fails.
      parseOrThrow(ConfigSchema, body, 'INVALID_CONFIG')
      await register(c.env, `config:${caller.id}`)
      const stored = await settled(c.env.CONFIGS.getByName(caller.id)).put(caller.id, body, c.req.header('if-match'))
      c.header('etag', stored.etag)
      return c.json(stored)
    },
  }),
  route({
    method: 'get',
    path: '/v1/config/schema.json',
    operationId: 'getConfigSchema',
    summary: 'The JSON Schema of the config document (generated from the schema that validates it)',
    auth: 'bearer',
    ok: { 200: 'a JSON Schema' },
    response: R.JsonSchema,
    errors: [],
    handler: (c) => c.json(configJsonSchema()),
  }),
  route({
    method: 'get',
    path: '/v1/config/credentials',
    operationId: 'listCredentials',
    summary: 'Which providers have a stored API key of the caller, and when it was set (never the key)',
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.Credentials,
    errors: [],
    handler: async (c) => {
      const id = callerOf(c).id
      return c.json({ items: await readConfig(c.env, id, (config) => config.credentials(), []) })
    },
  }),
  route({
    method: 'put',
    path: '/v1/config/credentials/{provider}',
    operationId: 'putCredential',
    summary: "Store the caller's API key for a provider, sealed with the deployment secret; write-only",
    auth: 'bearer',
    body: CredentialBody,
    maxBodyBytes: MAX_CREDENTIAL_BYTES,
    ok: { 200: 'which provider and when (never the key)' },
    response: R.Credential,
    errors: [...REQUEST_ERRORS, 'UNKNOWN_PROVIDER', 'CREDENTIALS_NOT_CONFIGURED'],
    handler: async (c) => {
      const caller = callerOf(c)
      const provider = keyedProvider(c.req.param('provider'))
      const { apiKey } = parseOrThrow(CredentialBody, await readJson(c.req.raw), 'INVALID_REQUEST')
      await register(c.env, `config:${caller.id}`)
      return c.json(await settled(c.env.CONFIGS.getByName(caller.id)).setCredential(caller.id, provider, apiKey))
    },
  }),
  route({
    method: 'delete',
    path: '/v1/config/credentials/{provider}',
    operationId: 'deleteCredential',
    summary: "Remove the caller's stored key for a provider (a new version without it)",
    auth: 'bearer',
    ok: { 200: '{ provider, deleted }' },
    response: R.CredentialDeleted,
    errors: ['UNKNOWN_PROVIDER'],
    handler: async (c) => {
      const caller = callerOf(c)
      const provider = keyedProvider(c.req.param('provider'))
      const deleted = await readConfig(c.env, caller.id, async (config) => (await config.deleteCredential(caller.id, provider)).deleted, false)
      return c.json({ provider, deleted })
    },
  }),
  // The caller's MCP servers: their headers and OAuth grants, write-only like keys.
  route({
    method: 'get',
    path: '/v1/config/mcp',
    operationId: 'listMcpHeaders',
    summary: "Which of the caller's MCP servers have stored headers, when they were set and their names (never the values)",
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.McpHeaders,
    errors: [],
    handler: async (c) => {
      const id = callerOf(c).id
      return c.json({ items: await readConfig(c.env, id, (config) => config.mcpHeaderInfo(), []) })
    },
  }),
  route({
    method: 'put',
    path: '/v1/config/mcp/{server}/headers',
    operationId: 'putMcpHeaders',
    summary: "Store the headers (e.g. a bearer token) every request to the caller's MCP server carries, sealed with the deployment secret; write-only",
    auth: 'bearer',
    body: McpHeadersBody,
    maxBodyBytes: MAX_MCP_HEADERS_BYTES,
    ok: { 200: 'which server, when, and the header names' },
    response: R.McpHeaderSet,
    errors: [...REQUEST_ERRORS, 'MCP_HEADER_FORBIDDEN', 'CREDENTIALS_NOT_CONFIGURED'],
    handler: async (c) => {
      const caller = callerOf(c)
      const server = parseOrThrow(McpServerName, c.req.param('server'), 'INVALID_REQUEST')
      const { headers } = parseOrThrow(McpHeadersBody, await readJson(c.req.raw), 'INVALID_REQUEST')
      checkMcpHeaderNames(headers)
      await register(c.env, `config:${caller.id}`)
      return c.json(await settled(c.env.CONFIGS.getByName(caller.id)).setMcpHeaders(caller.id, server, headers))
    },
  }),
  route({
    method: 'delete',
    path: '/v1/config/mcp/{server}/headers',
    operationId: 'deleteMcpHeaders',
    summary: "Remove the stored headers of the caller's MCP server (a new version without them)",
    auth: 'bearer',
    ok: { 200: '{ server, deleted }' },
    response: R.McpHeadersDeleted,
    errors: ['INVALID_REQUEST'],
    handler: async (c) => {
      const caller = callerOf(c)
      const server = parseOrThrow(McpServerName, c.req.param('server'), 'INVALID_REQUEST')
      const deleted = await readConfig(c.env, caller.id, async (config) => (await config.deleteMcpHeaders(caller.id, server)).deleted, false)
      return c.json({ server, deleted })
    },
  }),
  route({
    method: 'get',
    path: '/v1/config/mcp/oauth',
    operationId: 'listMcpOAuth',
    summary: "Which of the caller's MCP servers have an OAuth grant or a started authorization, and when the access token expires (never a token)",
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.McpOAuthList,
    errors: [],
    handler: async (c) => {
      const id = callerOf(c).id
      return c.json({ items: await readConfig(c.env, id, (config) => config.mcpOAuthInfo(), []) })
    },
  }),
  route({
    method: 'post',
    path: '/v1/config/mcp/{server}/oauth',
    operationId: 'startMcpOAuth',
    summary: "Start authorizing the caller's MCP server with OAuth: discovery, client registration, PKCE; answers the URL to open (the body is optional)",
    auth: 'bearer',
    body: McpOAuthStartBody,
    maxBodyBytes: MAX_MCP_OAUTH_BYTES,
    ok: { 200: 'the authorization URL and when it expires' },
    response: R.McpOAuthStarted,
    errors: [...REQUEST_ERRORS, 'MCP_SERVER_NOT_FOUND', 'MCP_URL_REFUSED', 'MCP_OAUTH_DISCOVERY_FAILED', 'MCP_OAUTH_CLIENT_REQUIRED', 'MCP_OAUTH_REGISTRATION_FAILED', 'MCP_OAUTH_UNSUPPORTED', 'CREDENTIALS_NOT_CONFIGURED'],
    handler: async (c) => {
      const caller = callerOf(c)
      const server = parseOrThrow(McpServerName, c.req.param('server'), 'INVALID_REQUEST')
      // The body is optional: an empty one starts with the listed URL and a registered client.
      const text = await c.req.text()
      const body = parseOrThrow(McpOAuthStartBody, text.trim() === '' ? {} : parseJson(text), 'INVALID_REQUEST')
      const stub = settled(c.env.CONFIGS.getByName(caller.id))
      const listed = (await exists(c.env, `config:${caller.id}`)) ? mcpServersOf((await stub.current()).document).find((entry) => entry.name === server) : undefined
      const url = body.url ?? listed?.url
      if (!url) {
        throw new NeuronError('MCP_SERVER_NOT_FOUND', `your config lists no MCP server ${server}: add it to mcpServers, or pass its url`, { status: 404, details: { server } })
      }
      await register(c.env, `config:${caller.id}`)
      const { url: _url, ...client } = body
      return c.json(await stub.startMcpOAuth(caller.id, server, { ...client, url, redirectUri: new URL(CALLBACK_PATH, c.req.url).href }))
    },
  }),
  route({
    method: 'delete',
    path: '/v1/config/mcp/{server}/oauth',
    operationId: 'forgetMcpOAuth',
    summary: "Forget the OAuth tokens and client registration of the caller's MCP server",
    auth: 'bearer',
    ok: { 200: '{ server, deleted }' },
    response: R.McpHeadersDeleted,
    errors: ['INVALID_REQUEST'],
    handler: async (c) => {
      const caller = callerOf(c)
      const server = parseOrThrow(McpServerName, c.req.param('server'), 'INVALID_REQUEST')
      const deleted = await readConfig(c.env, caller.id, async (config) => (await config.forgetMcpOAuth(caller.id, server)).deleted, false)
      return c.json({ server, deleted })
    },
  }),
]

/**
 * What `read` answers from the caller's config object, or `absent` when the caller never wrote a
 * config: reads and deletes of a config that does not exist create no storage.
 *
 * @example
 * const items = await readConfig(c.env, id, (config) => config.credentials(), [])
 */
async function readConfig<T, A>(env: Env, id: string, read: (config: DurableObjectStub<ConfigObject>) => Promise<T>, absent: A): Promise<T | A> {
  return (await exists(env, `config:${id}`)) ? read(settled(env.CONFIGS.getByName(id))) : absent
}

/** The `/v1/config` router, mounted by worker/neuron.ts: `app.route('/v1/config', config)`. */
export const config = mount('/v1/config', CONFIG_ROUTES)
