/**
 * The MCP client inside workerd against the official SDK's server on loopback:
 * initialize with a session id (SSE answers) and without (JSON answers),
 * paginated listings, progress, coded failures, time bounds and abort.
 */
import { describe, expect, inject, it } from 'vitest'
import { McpConnection } from '../../../objects/tools/mcp/connection.ts'
import { NeuronError } from '../../../objects/core/errors.ts'
import { MAX_MCP_LIST_BYTES, MAX_MCP_PATTERN_COST, MAX_MCP_RESPONSE_BYTES, MAX_MCP_RESULT_BYTES, MAX_MCP_TOOLS } from '../../../objects/core/limits.ts'

const base = inject('mcpServerUrl')
const dev = { development: true }
const calls = async () => (await (await fetch(`${base}/__calls`)).json()) as Record<string, number>
/** Polls the test server's counters until `check` holds (its notifications arrive after the call settles). */
async function until(check: (counts: Record<string, number>) => boolean): Promise<Record<string, number>> {
  const deadline = Date.now() + 3000
  for (;;) {
    const counts = await calls()
    if (check(counts) || Date.now() > deadline) return counts
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function failure(promise: Promise<unknown>): Promise<NeuronError> {
  const error = await promise.then(() => null, (thrown: unknown) => thrown)
  expect(error).toBeInstanceOf(NeuronError)
  return error as NeuronError
}

describe('McpConnection (the SDK client in workerd)', () => {
  for (const kind of ['sse', 'json']) {
    it(`lists and calls tools over ${kind} answers`, async () => {
      const server = new McpConnection({ name: 'test', url: `${base}/${kind}/mcp` }, {}, dev)
      const tools = await server.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'fail', 'hang', 'lookup', 'slow', 'unsafe', 'whoami'])
      expect(await server.callTool('echo', { text: 'hi' }, { signal: new AbortController().signal })).toBe('echo: hi')
      await server.close()
    })
  }

  it('bounds what a server can make a session hold: tools, list bytes, a result, an answer', async () => {
    const signal = new AbortController().signal
    const flood = (query: string) => new McpConnection({ name: 'flood', url: `${base}/flood/mcp?${query}` }, {}, dev)
    expect((await flood(`tools=${MAX_MCP_TOOLS}`).listTools()).length).toBe(MAX_MCP_TOOLS)
    expect(await failure(flood(`tools=1000`).listTools())).toMatchObject({ code: 'MCP_TOO_MANY_TOOLS', details: { limit: MAX_MCP_TOOLS } })
    expect(await failure(flood(`tools=100&pad=${8 * 1024}`).listTools())).toMatchObject({ code: 'MCP_LIST_TOO_LARGE', details: { limit: MAX_MCP_LIST_BYTES } })
    // Every tool's patterns are compiled when the list is read: their cost together is bounded too.
    const costly = encodeURIComponent('^[^x]{1,1000}$')
    expect(await failure(flood(`tools=${Math.ceil(MAX_MCP_PATTERN_COST / 1002) + 1}&pattern=${costly}`).listTools())).toMatchObject({ code: 'MCP_LIST_TOO_LARGE', details: { limit: MAX_MCP_PATTERN_COST } })
    expect((await flood(`tools=${Math.floor(MAX_MCP_PATTERN_COST / 1002)}&pattern=${costly}`).listTools()).length).toBe(Math.floor(MAX_MCP_PATTERN_COST / 1002))
    expect(await flood('tools=1').callTool('t0', { bytes: 1000 }, { signal })).toHaveLength(1000)
    expect(await failure(flood('tools=1').callTool('t0', { bytes: MAX_MCP_RESULT_BYTES + 1 }, { signal }))).toMatchObject({ code: 'MCP_RESULT_TOO_LARGE' })
    // Past the bound of one answer the body stops being read: it is never held whole.
    expect(await failure(flood('tools=1').callTool('t0', { bytes: MAX_MCP_RESPONSE_BYTES + 1 }, { signal }))).toMatchObject({ code: 'MCP_RESPONSE_TOO_LARGE' })
  })

  it('reads every page of a paginated listing', async () => {
    const server = new McpConnection({ name: 'paged', url: `${base}/paged/mcp` }, {}, dev)
    expect((await server.listTools()).map((tool) => tool.name)).toEqual(['one', 'two', 'three', 'four', 'five'])
  })

  it('reports progress and answers the slow tool', async () => {
    const server = new McpConnection({ name: 'test', url: `${base}/sse/mcp` }, {}, dev)
    const seen: number[] = []
    const text = await server.callTool('slow', { ms: 300 }, { signal: new AbortController().signal, progress: (p) => seen.push(p.progress) })
    expect(text).toBe('slept 300 ms')
    expect(seen).toEqual([1, 2, 3])
  })

  it('sends the configured headers', async () => {
    const server = new McpConnection({ name: 'test', url: `${base}/json/mcp` }, { authorization: 'Bearer t0ken' }, dev)
    expect(await server.callTool('whoami', {}, { signal: new AbortController().signal })).toBe('Bearer t0ken')
  })

  it('codes a tool error, a server that is down, a hang and a refused URL', async () => {
    const signal = new AbortController().signal
    const server = new McpConnection({ name: 'test', url: `${base}/json/mcp` }, {}, dev)
    expect((await failure(server.callTool('fail', {}, { signal }))).code).toBe('MCP_TOOL_ERROR')
    const down = new McpConnection({ name: 'down', url: 'http://127.0.0.1:1/mcp' }, {}, dev)
    expect((await failure(down.listTools())).code).toBe('MCP_UNAVAILABLE')
    const hang = new McpConnection({ name: 'test', url: `${base}/sse/mcp`, timeoutMs: 1000 }, {}, dev)
    const started = Date.now()
    expect((await failure(hang.callTool('hang', { ms: 5000 }, { signal }))).code).toBe('MCP_TIMEOUT')
    expect(Date.now() - started).toBeLessThan(4000)
    const prod = new McpConnection({ name: 'test', url: `${base}/json/mcp` }, {}, { development: false })
    expect((await failure(prod.listTools())).code).toBe('MCP_URL_REFUSED')
  })

  it('keeps a call that sends progress alive past the idle timeout', async () => {
    const server = new McpConnection({ name: 'test', url: `${base}/sse/mcp`, timeoutMs: 1000 }, {}, dev)
    expect(await server.callTool('slow', { ms: 1500 }, { signal: new AbortController().signal })).toBe('slept 1500 ms')
  })

  it('aborts a running call at once', async () => {
    const server = new McpConnection({ name: 'test', url: `${base}/sse/mcp` }, {}, dev)
    const controller = new AbortController()
    const started = Date.now()
    const call = server.callTool('slow', { ms: 10_000 }, { signal: controller.signal })
    setTimeout(() => controller.abort(new Error('stop')), 200)
    await expect(call).rejects.toBeTruthy()
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('an aborted call reaches the server as notifications/cancelled: its signal aborts, and the connection stays usable', async () => {
    const server = new McpConnection({ name: 'test', url: `${base}/sse/mcp` }, {}, dev)
    await server.listTools()
    const before = await calls()
    const stop = new AbortController()
    const call = server.callTool('hang', { ms: 20_000 }, { signal: stop.signal })
    await until((c) => (c['/sse/mcp tools/call'] ?? 0) > (before['/sse/mcp tools/call'] ?? 0))
    stop.abort(new Error('interrupted by the test'))
    await expect(call).rejects.toThrow()
    const after = await until((c) => (c['/sse/mcp aborted hang'] ?? 0) > (before['/sse/mcp aborted hang'] ?? 0))
    expect((after['/sse/mcp notifications/cancelled'] ?? 0) - (before['/sse/mcp notifications/cancelled'] ?? 0)).toBe(1)
    expect((after['/sse/mcp aborted hang'] ?? 0) - (before['/sse/mcp aborted hang'] ?? 0)).toBe(1)
    // Same session: no new initialize.
    expect(await server.callTool('echo', { text: 'still here' }, { signal: new AbortController().signal })).toBe('echo: still here')
    expect((await calls())['/sse/mcp initialize']).toBe(after['/sse/mcp initialize'])
    await server.close()
  }, 15_000)

  it('closing a connection ends its MCP session (DELETE); a stateless server is sent none', async () => {
    const before = await calls()
    const server = new McpConnection({ name: 'test', url: `${base}/sse/mcp` }, {}, dev)
    await server.listTools()
    await server.close()
    const after = await until((c) => (c['/sse/mcp session.closed'] ?? 0) > (before['/sse/mcp session.closed'] ?? 0))
    const delta = (key: string) => (after[key] ?? 0) - (before[key] ?? 0)
    expect([delta('/sse/mcp session.initialized'), delta('/sse/mcp DELETE'), delta('/sse/mcp session.closed')]).toEqual([1, 1, 1])
    const stateless = new McpConnection({ name: 'test', url: `${base}/json/mcp` }, {}, dev)
    await stateless.listTools()
    await stateless.close()
    expect((await calls())['/json/mcp DELETE'] ?? 0).toBe(0)
  }, 15_000)
})
