/**
 * MCP both ways against a real `wrangler dev`:
 * - client: the official SDK's MCP server runs as its own process on loopback; a principal's
 *   config lists it and its bearer token is stored sealed. A session calls its tools by their
 *   `mcp.test.*` names; the token reaches the server and nowhere else; a slow tool's progress
 *   arrives as air on the event stream; the server killed mid-call fails the call with a code
 *   within a bounded time and the session goes on.
 * - server: the official SDK's `Client` + `StreamableHTTPClientTransport` drive `POST /v1/mcp`.
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScriptServer } from '../support/script-server.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const TOKEN = 'Bearer mcp-process-secret-0123456789'
const SERVER_SCRIPT = fileURLToPath(new URL('../support/mcp-server.ts', import.meta.url))

/** The test MCP server as a child process (so it can be killed); resolves with its base URL. */
const startServerProcess = () => startScriptServer(SERVER_SCRIPT)

type Event = { seq: number; type: string; payload: Record<string, unknown> }

describe('MCP (real wrangler dev)', () => {
  let dev: Wrangler
  let server: { child: ChildProcess; url: string }
  let auth: Record<string, string>
  const call = (path: string, init: RequestInit = {}) => fetch(`${dev.url}${path}`, { ...init, headers: { ...auth, 'content-type': 'application/json' } })
  const history = async (id: string) => ((await (await call(`/v1/sessions/${id}/history?limit=1000`)).json()) as { items: Event[] }).items
  async function settle(id: string, timeoutMs = 30_000): Promise<Event[]> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const view = (await (await call(`/v1/sessions/${id}`)).json()) as { status: string }
      if (view.status === 'idle') return history(id)
      if (Date.now() > deadline) throw new Error(`session ${id} still busy`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  beforeAll(async () => {
    server = await startServerProcess()
    dev = await startWrangler({ vars: { CREDENTIALS_SECRET: 'process-test-credentials-secret-0123' } })
    auth = { authorization: `Bearer ${await devToken('mcp-process')}` }
  })
  afterAll(async () => {
    await dev?.stop()
    server?.child.kill('SIGKILL')
  })

  it('calls the tools of a configured server with its sealed token; progress is air', async () => {
    expect((await call('/v1/config', { method: 'PUT', body: JSON.stringify({ mcpServers: [{ name: 'test', url: `${server.url}/sse/mcp`, timeoutMs: 3000 }], permission: { rules: [{ source: 'mcp:*', action: 'allow' }] } }) })).status).toBe(200)
    expect((await call('/v1/config/mcp/test/headers', { method: 'PUT', body: JSON.stringify({ headers: { authorization: TOKEN } }) })).status).toBe(200)
    expect((await call('/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'mcp-client' }) })).status).toBe(201)

    // Progress deltas arrive on the event stream while the slow tool runs.
    const events = await call('/v1/sessions/mcp-client/events')
    const reader = events.body!.getReader()
    let stream = ''
    const progress = (async () => {
      const decoder = new TextDecoder()
      while (!stream.includes('"tool-progress"')) {
        const { value, done } = await reader.read()
        if (done) return
        stream += decoder.decode(value)
      }
    })()
    expect((await call('/v1/sessions/mcp-client/prompt', { method: 'POST', body: JSON.stringify({ text: '/tool mcp.test.whoami {}\n/tool mcp.test.slow {"ms":600}' }) })).status).toBe(202)
    const log = await settle('mcp-client')
    await Promise.race([progress, new Promise((r) => setTimeout(r, 5000))])
    void reader.cancel()
    expect(stream).toMatch(/"type":"tool-progress"[^\n]*"progress":1/)
    const contents = log.filter((e) => e.type === 'session.next.tool.succeeded').map((e) => e.payload.content)
    expect(contents).toEqual([TOKEN, 'slept 600 ms'])
    // The token reached the server (above) and is in no answer the API gives, nor in the worker's log.
    const listing = await (await call('/v1/config/mcp')).text()
    expect(JSON.parse(listing)).toEqual({ items: [{ server: 'test', setAt: expect.any(String), names: ['authorization'] }] })
    expect(listing + (await (await call('/v1/config')).text())).not.toContain('mcp-process-secret')
    expect(dev.output()).not.toContain('mcp-process-secret')
    // Progress is air: none of it was stored.
    expect(JSON.stringify(log)).not.toContain('tool-progress')
  })

  it('a server killed mid-call fails the call with a code within a bounded time; the session goes on', async () => {
    expect((await call('/v1/sessions', { method: 'POST', body: JSON.stringify({ id: 'mcp-killed' }) })).status).toBe(201)
    expect((await call('/v1/sessions/mcp-killed/prompt', { method: 'POST', body: JSON.stringify({ text: '/tool mcp.test.slow {"ms":20000}' }) })).status).toBe(202)
    const deadline = Date.now() + 20_000
    while (!(await history('mcp-killed')).some((e) => e.type === 'session.next.tool.called')) {
      if (Date.now() > deadline) throw new Error('the call never started')
      await new Promise((r) => setTimeout(r, 50))
    }
    await new Promise((r) => setTimeout(r, 300))
    const killedAt = Date.now()
    server.child.kill('SIGKILL')
    const log = await settle('mcp-killed', 20_000)
    const settledMs = Date.now() - killedAt
    console.log(`mcp: the call settled ${settledMs} ms after its server was killed`)
    const failed = log.find((e) => e.type === 'session.next.tool.failed')
    // The broken answer stream fails the call at once, well before the server's 3 s idle timeout.
    expect(failed?.payload.error).toMatchObject({ code: 'MCP_UNAVAILABLE' })
    expect(settledMs).toBeLessThan(2500)
    expect(log.some((e) => e.type === 'session.next.step.ended')).toBe(true)
    // The session works on: the next prompt (no server now) settles with the built-ins.
    expect((await call('/v1/sessions/mcp-killed/prompt', { method: 'POST', body: JSON.stringify({ text: '/tool calculator {"expression":"6*7"}' }) })).status).toBe(202)
    const after = await settle('mcp-killed', 20_000)
    expect(after.filter((e) => e.type === 'session.next.tool.succeeded').map((e) => e.payload.content)).toContain('6*7 = 42')
  })

  it('serves MCP clients at /v1/mcp: the official SDK client runs a session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${dev.url}/v1/mcp`), { requestInit: { headers: auth } })
    const client = new Client({ name: 'process-test', version: '1' })
    await client.connect(transport)
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort()
    expect(names).toEqual(['session_answer_permission', 'session_create', 'session_history', 'session_interrupt', 'session_list', 'session_permissions', 'session_prompt'])
    const text = (result: unknown) => JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as Record<string, unknown>
    expect(text(await client.callTool({ name: 'session_create', arguments: { id: 'over-mcp' } }))).toMatchObject({ created: true })
    expect(text(await client.callTool({ name: 'session_prompt', arguments: { session: 'over-mcp', text: '/say hi over MCP' } }))).toMatchObject({ status: 'settled', reply: 'hi over MCP' })
    const page = text(await client.callTool({ name: 'session_history', arguments: { session: 'over-mcp' } })) as { items: Event[] }
    expect(page.items.map((e) => e.type)).toContain('session.next.text')
    expect((text(await client.callTool({ name: 'session_list', arguments: {} })) as { items: { id: string }[] }).items.map((i) => i.id)).toEqual(['mcp-client', 'mcp-killed', 'over-mcp'])
    await client.close()
    const anonymous = new Client({ name: 'anonymous', version: '1' })
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/v1/mcp`)))).rejects.toThrow(/401|TOKEN_MISSING/)
  })
})
