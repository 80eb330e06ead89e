/**
 * `/v1/config`: the caller's config document (one per principal, append-only
 * versions, ETag / If-Match), the JSON Schema it follows, and the caller's
 * stored provider keys, which are write-only: a listing says which providers
 * have one and when it was set, never the key. The headers of the caller's MCP
 * servers (bearer tokens) are write-only the same way, by server name, and so
 * are their OAuth grants: the caller starts an authorization here and gets the
 * URL to open; the code comes back to `/v1/oauth/mcp/callback` (routes/oauth.ts).
 */
import { Hono } from 'hono'
import { etagOf } from '../../objects/config/config-object.ts'
import { ConfigSchema, configJsonSchema } from '../../objects/config/schema.ts'
import { CredentialBody, keyedProvider } from '../../objects/config/credentials.ts'
import { settled } from '../../objects/core/rpc.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { parseJson } from '../../objects/core/parse-json.ts'
import { checkMcpHeaderNames, McpHeadersBody, McpOAuthStartBody, McpServerName, mcpServersOf } from '../../objects/tools/mcp/servers.ts'
import { MAX_BODY_BYTES, MAX_CREDENTIAL_BYTES, MAX_MCP_HEADERS_BYTES, MAX_MCP_OAUTH_BYTES } from '../../objects/core/limits.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { exists, register } from '../../objects/directory/keys.ts'
import { readJson } from '../read-json.ts'
import { CALLBACK_PATH } from './oauth.ts'

export const config = new Hono<AppEnv>()
  .get('/schema.json', (c) => c.json(configJsonSchema()))
  .get('/', async (c) => {
    const id = callerOf(c).id
    // Reads create no storage: a principal that never wrote a config has the empty version 0.
    const current = (await exists(c.env, `config:${id}`)) ? await settled(c.env.CONFIGS.getByName(id)).current() : { version: 0, etag: etagOf(0), document: {} }
    c.header('etag', current.etag)
    return c.json(current)
  })
  .put('/', limitBody(MAX_BODY_BYTES), async (c) => {
    const caller = callerOf(c)
    const body = await readJson(c.req.raw)
    // Checked here, then registered before the object writes: a request never writes and then fails.
    parseOrThrow(ConfigSchema, body, 'INVALID_CONFIG')
    await register(c.env, `config:${caller.id}`)
    const stored = await settled(c.env.CONFIGS.getByName(caller.id)).put(caller.id, body, c.req.header('if-match'))
    c.header('etag', stored.etag)
    return c.json(stored)
  })
  .get('/credentials', async (c) => {
    const id = callerOf(c).id
    return c.json({ items: (await exists(c.env, `config:${id}`)) ? await settled(c.env.CONFIGS.getByName(id)).credentials() : [] })
  })
  .put('/credentials/:provider', limitBody(MAX_CREDENTIAL_BYTES), async (c) => {
    const caller = callerOf(c)
    const provider = keyedProvider(c.req.param('provider'))
    const { apiKey } = parseOrThrow(CredentialBody, await readJson(c.req.raw), 'INVALID_REQUEST')
    await register(c.env, `config:${caller.id}`)
    return c.json(await settled(c.env.CONFIGS.getByName(caller.id)).setCredential(caller.id, provider, apiKey))
  })
  .delete('/credentials/:provider', async (c) => {
    const caller = callerOf(c)
    const provider = keyedProvider(c.req.param('provider'))
    const deleted = (await exists(c.env, `config:${caller.id}`)) && (await settled(c.env.CONFIGS.getByName(caller.id)).deleteCredential(caller.id, provider)).deleted
    return c.json({ provider, deleted })
  })
  .get('/mcp', async (c) => {
    const id = callerOf(c).id
    return c.json({ items: (await exists(c.env, `config:${id}`)) ? await settled(c.env.CONFIGS.getByName(id)).mcpHeaderInfo() : [] })
  })
  .put('/mcp/:server/headers', limitBody(MAX_MCP_HEADERS_BYTES), async (c) => {
    const caller = callerOf(c)
    const server = parseOrThrow(McpServerName, c.req.param('server'), 'INVALID_REQUEST')
    const { headers } = parseOrThrow(McpHeadersBody, await readJson(c.req.raw), 'INVALID_REQUEST')
    checkMcpHeaderNames(headers)
    await register(c.env, `config:${caller.id}`)
    return c.json(await settled(c.env.CONFIGS.getByName(caller.id)).setMcpHeaders(caller.id, server, headers))
  })
  .delete('/mcp/:server/headers', async (c) => {
    const caller = callerOf(c)
    const server = parseOrThrow(McpServerName, c.req.param('server'), 'INVALID_REQUEST')
    const deleted = (await exists(c.env, `config:${caller.id}`)) && (await settled(c.env.CONFIGS.getByName(caller.id)).deleteMcpHeaders(caller.id, server)).deleted
    return c.json({ server, deleted })
  })
  .get('/mcp/oauth', async (c) => {
    const id = callerOf(c).id
    return c.json({ items: (await exists(c.env, `config:${id}`)) ? await settled(c.env.CONFIGS.getByName(id)).mcpOAuthInfo() : [] })
  })
  .post('/mcp/:server/oauth', limitBody(MAX_MCP_OAUTH_BYTES), async (c) => {
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
  })
  .delete('/mcp/:server/oauth', async (c) => {
    const caller = callerOf(c)
    const server = parseOrThrow(McpServerName, c.req.param('server'), 'INVALID_REQUEST')
    const deleted = (await exists(c.env, `config:${caller.id}`)) && (await settled(c.env.CONFIGS.getByName(caller.id)).forgetMcpOAuth(caller.id, server)).deleted
    return c.json({ server, deleted })
  })
