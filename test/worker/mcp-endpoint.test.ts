/**
 * Neuron as an MCP server, inside workerd: the official SDK's `Client` and
 * `StreamableHTTPClientTransport` talk to `POST /v1/mcp` through the real gate.
 * The tools act as the token's principal on the same objects as the REST routes;
 * failures come back as coded `isError` results; no token is 401 before MCP runs.
 */
import { exports } from 'cloudflare:workers'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker'
import { describe, expect, it } from 'vitest'
import { api } from '../support/api.ts'
import { bearer } from '../support/auth.ts'
import { uniqueName } from '../support/ledger.ts'
import { jsonSchemaTool } from '../../objects/tools/json-schema-tool.ts'

async function connect(as: string, claims?: string[]): Promise<Client> {
  const auth = await bearer(as, ...(claims ? [claims] : []))
  const transport = new StreamableHTTPClientTransport(new URL('http://neuron/v1/mcp'), {
    requestInit: { headers: auth },
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  })
  const client = new Client({ name: 'test', version: '1' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })
  await client.connect(transport)
  return client
}

type Text = { content: { type: string; text: string }[]; isError?: boolean }
const body = (result: unknown) => JSON.parse((result as Text).content[0]!.text) as Record<string, unknown>

describe('POST /v1/mcp', () => {
  it('lists the session tools and runs a session through them', async () => {
    const client = await connect('mcp-user')
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(tools).toEqual(['session_answer_permission', 'session_create', 'session_history', 'session_interrupt', 'session_list', 'session_permissions', 'session_prompt'])
    const id = uniqueName('mcp-endpoint')
    const created = await client.callTool({ name: 'session_create', arguments: { id, title: 'over MCP' } })
    expect(body(created)).toMatchObject({ created: true, session: { id, title: 'over MCP' } })
    const prompted = await client.callTool({ name: 'session_prompt', arguments: { session: id, text: '/say hello from MCP', id: 'm-1' } })
    expect(body(prompted)).toMatchObject({ status: 'settled', reply: 'hello from MCP', messageId: 'm-1', duplicate: false })
    // The same message id again is the same prompt: nothing is admitted twice.
    expect(body(await client.callTool({ name: 'session_prompt', arguments: { session: id, text: '/say hello from MCP', id: 'm-1' } }))).toMatchObject({ duplicate: true })
    const history = body(await client.callTool({ name: 'session_history', arguments: { session: id, limit: 1000 } })) as { items: { type: string }[] }
    expect(history.items.filter((e) => e.type === 'session.next.admitted')).toHaveLength(1)
    // The REST route and the MCP tool read the same object.
    const rest = (await (await api(`/v1/sessions/${id}/history?limit=1000`, {}, 'mcp-user')).json()) as { items: unknown[] }
    expect(rest.items).toEqual(history.items)
    const listed = body(await client.callTool({ name: 'session_list', arguments: {} })) as { items: { id: string }[] }
    expect(listed.items.map((item) => item.id)).toContain(id)
    expect(body(await client.callTool({ name: 'session_interrupt', arguments: { session: id } }))).toMatchObject({ interrupted: false })
    // Permission requests: none pending; an answer to an unknown one is a coded failure that writes nothing.
    expect(body(await client.callTool({ name: 'session_permissions', arguments: { session: id } }))).toEqual({ items: [] })
    const refused = await client.callTool({ name: 'session_answer_permission', arguments: { session: id, toolCallId: 'nope', reply: 'once' } })
    expect(refused.isError).toBe(true)
    expect(JSON.stringify(refused.content)).toContain('PERMISSION_UNKNOWN')
    await client.close()
  })

  it('declares every result shape (outputSchema) and answers it as structuredContent; advertises no listChanged it cannot send', async () => {
    const client = await connect('mcp-structured')
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true)
    const listed = (await client.listTools()).tools
    for (const tool of listed) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', properties: expect.any(Object) })
    const id = uniqueName('mcp-structured')
    // The SDK's client checks each structuredContent against the listed outputSchema, and fails the call otherwise.
    const results = [
      await client.callTool({ name: 'session_create', arguments: { id } }),
      await client.callTool({ name: 'session_prompt', arguments: { session: id, text: '/say structured' } }),
      await client.callTool({ name: 'session_history', arguments: { session: id } }),
      await client.callTool({ name: 'session_list', arguments: {} }),
      await client.callTool({ name: 'session_interrupt', arguments: { session: id } }),
    ]
    for (const result of results) {
      expect(result.isError).toBeFalsy()
      expect(result.structuredContent).toEqual(body(result))
    }
    expect(results[1]!.structuredContent).toMatchObject({ status: 'settled', reply: 'structured' })
    await client.close()
  })

  it('a 401 names the protected-resource metadata, so an OAuth-only client discovers the authorization server', async () => {
    const anonymous = await exports.default.fetch('http://neuron/v1/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(anonymous.status).toBe(401)
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(anonymous)
    expect(resourceMetadataUrl?.href).toBe('http://neuron/.well-known/oauth-protected-resource/v1/mcp')
    // The SDK's own discovery, as an MCP client runs it before signing in.
    const metadata = await discoverOAuthProtectedResourceMetadata(new URL('http://neuron/v1/mcp'), { resourceMetadataUrl }, (url, init) => exports.default.fetch(new Request(url, init)))
    expect(metadata).toMatchObject({ resource: 'http://neuron/v1/mcp', authorization_servers: ['https://issuer.test'], bearer_methods_supported: ['header'] })
    // Found without the header too, by the well-known path RFC 9728 derives from the resource.
    const derived = await discoverOAuthProtectedResourceMetadata(new URL('http://neuron/v1/mcp'), {}, (url, init) => exports.default.fetch(new Request(url, init)))
    expect(derived.resource).toBe('http://neuron/v1/mcp')
    // Every 401 of the API carries the challenge; the API as a whole has its own document.
    const rest = await exports.default.fetch('http://neuron/v1/sessions')
    expect(extractWWWAuthenticateParams(rest).resourceMetadataUrl?.href).toBe('http://neuron/.well-known/oauth-protected-resource')
    expect(await (await exports.default.fetch('http://neuron/.well-known/oauth-protected-resource')).json()).toMatchObject({ resource: 'http://neuron', authorization_servers: ['https://issuer.test'] })
  })

  it('offers tools whose schemas Neuron’s own MCP client accepts, every one', async () => {
    const client = await connect('mcp-user')
    const { tools } = await client.listTools()
    // What the client side does with every listed tool (tools/mcp/toolset.ts): its id pattern among them.
    const refused = tools.flatMap((tool) => {
      try {
        jsonSchemaTool({ description: tool.description ?? '', inputSchema: tool.inputSchema as Record<string, unknown>, execute: () => '' })
        return []
      } catch (error) {
        return [{ tool: tool.name, error: (error as Error).message }]
      }
    })
    expect(tools).toHaveLength(7)
    expect(refused).toEqual([])
    await client.close()
  })

  it('answers a turn that outlasts waitMs with its message id, still running', async () => {
    const client = await connect('mcp-user')
    const id = uniqueName('mcp-wait')
    await client.callTool({ name: 'session_create', arguments: { id } })
    const prompted = body(await client.callTool({ name: 'session_prompt', arguments: { session: id, text: '/slow 200\n/tokens 10', waitMs: 100 } }))
    expect(prompted).toMatchObject({ status: 'running', sequence: expect.any(Number), messageId: expect.any(String) })
    expect(body(await client.callTool({ name: 'session_interrupt', arguments: { session: id } }))).toMatchObject({ interrupted: true })
  })

  it("authorizes by claims like REST: another principal's session is not found, an agent cannot create", async () => {
    const owner = await connect('mcp-owner')
    const id = uniqueName('mcp-private')
    await owner.callTool({ name: 'session_create', arguments: { id } })
    const stranger = await connect('mcp-stranger')
    const denied = (await stranger.callTool({ name: 'session_history', arguments: { session: id } })) as Text
    expect(denied.isError).toBe(true)
    expect(body(denied)).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } })
    expect(body(await stranger.callTool({ name: 'session_list', arguments: {} }))).toEqual({ items: [], next: null })
    const agent = await connect('mcp-agent', ['role:agent'])
    const refused = (await agent.callTool({ name: 'session_create', arguments: {} })) as Text
    expect(refused.isError).toBe(true)
    expect(body(refused)).toMatchObject({ error: { code: 'SPAWN_REFUSED' } })
    const missing = (await owner.callTool({ name: 'session_prompt', arguments: { session: 'no-such-session', text: 'hi' } })) as Text
    expect(body(missing)).toMatchObject({ error: { code: 'SESSION_NOT_FOUND' } })
  })

  it('is behind the gate: no token is 401 with a code; GET is 405', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) }
    const anonymous = await exports.default.fetch('http://neuron/v1/mcp', init)
    expect(anonymous.status).toBe(401)
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('TOKEN_MISSING')
    const get = await api('/v1/mcp')
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
  })
})
