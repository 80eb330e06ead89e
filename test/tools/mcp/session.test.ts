/**
 * MCP tools in a session, inside workerd, against the official SDK's server on
 * loopback: a session's config lists the server, its tools are offered as
 * `mcp.test.*` (the one with an unsafe schema refused alone), calls settle
 * durably (a success, the server's own error, input refused before the server
 * sees it), the tool list is cached across turns, and an interrupt stops a
 * running call.
 */
import { describe, expect, inject, it } from 'vitest'
import { api, events, newSession, ownerCaller, postJson, waitFor, waitIdle } from '../../support/session.ts'
import { allowSource } from '../../support/permission.ts'

const base = inject('mcpServerUrl')
const calls = async () => (await (await fetch(`${base}/__calls`)).json()) as Record<string, number>

async function mcpSession(prefix: string, path = 'sse') {
  const session = await newSession(prefix)
  const put = await api(`/v1/sessions/${session.id}/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mcpServers: [{ name: 'test', url: `${base}/${path}/mcp`, timeoutMs: 2000 }], ...allowSource('mcp:*') }),
  })
  expect(put.status).toBe(200)
  return session
}

describe('MCP tools in a session', () => {
  it('offers the server tools as mcp.<server>.<tool>, refuses the unsafe one alone, and settles calls durably', async () => {
    const { id, stub } = await mcpSession('mcp-offer')
    // One call by the canonical name, one by the provider-safe name, one with input the schema refuses.
    const prompt = ['/tool mcp.test.echo {"text":"hi"}', '/tool mcp__test__fail {}', '/tool mcp.test.echo {"text":7}'].join('\n')
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: prompt })).status).toBe(202)
    await waitIdle(id)
    const log = await events(id)
    const called = log.filter((e) => e.type === 'session.next.tool.called').map((e) => (e.payload as { name: string }).name)
    expect(called).toEqual(['mcp.test.echo', 'mcp.test.fail', 'mcp.test.echo'])
    const outcomes = log.filter((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed').map((e) => e.payload as { content?: string; error?: { code: string } })
    expect(outcomes[0]!.content).toBe('echo: hi')
    expect(outcomes[1]!.error?.code).toBe('MCP_TOOL_ERROR')
    expect(outcomes[2]!.error?.code).toBe('TOOL_INPUT_INVALID')
    // The offered list is recorded: canonical names, the unsafe tool absent, schemas verbatim.
    const started = log.find((e) => e.type === 'session.next.step.started')!.payload as { tools: string }
    const offered = JSON.parse(new TextDecoder().decode((await stub.readArtifact(ownerCaller, started.tools)).bytes)) as { name: string; inputSchema: { properties: Record<string, unknown> } }[]
    const names = offered.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['calculator', 'mcp.test.echo', 'mcp.test.slow', 'mcp.test.hang', 'mcp.test.fail', 'mcp.test.whoami']))
    expect(names).not.toContain('mcp.test.unsafe')
    expect(offered.find((tool) => tool.name === 'mcp.test.echo')!.inputSchema.properties).toEqual({ text: { type: 'string' } })
  })

  it('lists a server once across turns (cached), not once per turn', async () => {
    const { id } = await mcpSession('mcp-cache', 'json')
    const before = (await calls())['/json/mcp tools/list'] ?? 0
    for (let i = 0; i < 3; i++) {
      const seen = (await events(id)).length
      expect((await postJson(`/v1/sessions/${id}/prompt`, { text: `/tool mcp.test.echo {"text":"turn ${i}"}` })).status).toBe(202)
      await waitFor(id, 'session.next.drain.ended', seen)
    }
    await waitIdle(id)
    expect(((await calls())['/json/mcp tools/list'] ?? 0) - before).toBe(1)
    const contents = (await events(id)).filter((e) => e.type === 'session.next.tool.succeeded').map((e) => (e.payload as { content: string }).content)
    expect(contents).toEqual(['echo: turn 0', 'echo: turn 1', 'echo: turn 2'])
  })

  it('a server that hangs fails the call with MCP_TIMEOUT within its bound; the turn goes on', async () => {
    const { id } = await mcpSession('mcp-hang')
    const started = Date.now()
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool mcp.test.hang {"ms":30000}' })).status).toBe(202)
    await waitIdle(id, 15_000)
    expect(Date.now() - started).toBeLessThan(10_000)
    const failed = (await events(id)).find((e) => e.type === 'session.next.tool.failed')!.payload as { error: { code: string } }
    expect(failed.error.code).toBe('MCP_TIMEOUT')
    expect((await events(id)).some((e) => e.type === 'session.next.step.ended')).toBe(true)
  })

  it('an interrupt stops a running MCP call: cancelled, never a result, and the server is told (its signal aborts)', async () => {
    const { id } = await mcpSession('mcp-interrupt')
    const before = await calls()
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool mcp.test.slow {"ms":20000}' })).status).toBe(202)
    await waitFor(id, 'session.next.tool.called')
    const started = Date.now()
    expect((await postJson(`/v1/sessions/${id}/interrupt`, {})).status).toBe(200)
    await waitIdle(id, 5000)
    expect(Date.now() - started).toBeLessThan(3000)
    const log = await events(id)
    expect(log.some((e) => e.type === 'session.next.tool.cancelled')).toBe(true)
    expect(log.some((e) => e.type === 'session.next.tool.succeeded')).toBe(false)
    const delta = (counts: Record<string, number>, key: string) => (counts[key] ?? 0) - (before[key] ?? 0)
    let after = await calls()
    for (let i = 0; i < 40 && delta(after, '/sse/mcp aborted slow') === 0; i++) {
      await new Promise((r) => setTimeout(r, 50))
      after = await calls()
    }
    expect([delta(after, '/sse/mcp notifications/cancelled'), delta(after, '/sse/mcp aborted slow')]).toEqual([1, 1])
  })

  it('a server dropped from the config has its MCP session ended (DELETE)', async () => {
    const { id } = await mcpSession('mcp-retire')
    const before = await calls()
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool mcp.test.echo {"text":"once"}' })).status).toBe(202)
    await waitIdle(id)
    await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mcpServers: [], ...allowSource('mcp:*') }) })
    const seen = (await events(id)).length
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: 'no servers now' })).status).toBe(202)
    await waitFor(id, 'session.next.drain.ended', seen)
    const delta = (counts: Record<string, number>, key: string) => (counts[key] ?? 0) - (before[key] ?? 0)
    let after = await calls()
    for (let i = 0; i < 40 && delta(after, '/sse/mcp session.closed') === 0; i++) {
      await new Promise((r) => setTimeout(r, 50))
      after = await calls()
    }
    expect([delta(after, '/sse/mcp session.initialized'), delta(after, '/sse/mcp DELETE'), delta(after, '/sse/mcp session.closed')]).toEqual([1, 1, 1])
  })

  it('a server that is down offers no tools; calling one is TOOL_NOT_FOUND, and the session works on', async () => {
    const { id } = await newSession('mcp-down')
    await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mcpServers: [{ name: 'down', url: 'http://127.0.0.1:1/mcp' }] }) })
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool mcp.down.echo {}\n/tool calculator {"expression":"2+3"}' })).status).toBe(202)
    await waitIdle(id)
    const log = await events(id)
    expect((log.find((e) => e.type === 'session.next.tool.failed')!.payload as { error: { code: string } }).error.code).toBe('TOOL_NOT_FOUND')
    expect((log.find((e) => e.type === 'session.next.tool.succeeded')!.payload as { content: string }).content).toContain('5')
  })

  it('a server that needs OAuth: listed as MCP_AUTH_REQUIRED, and the model is told how its owner authorizes it', async () => {
    const { id, stub } = await newSession('mcp-needs-auth')
    const url = `${inject('mcpOAuthServerUrl')}/mcp`
    await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mcpServers: [{ name: 'secured', url }] }) })
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: '/tool calculator {"expression":"2+3"}' })).status).toBe(202)
    await waitIdle(id)
    const log = await events(id)
    expect(log.some((e) => e.type === 'session.next.tool.succeeded')).toBe(true)
    // The first turn's context baseline carries the note (the context source mcp.authorization).
    const epoch = log.find((e) => e.type === 'session.next.epoch.started')!.payload as { baseline: string }
    const baseline = JSON.parse(new TextDecoder().decode((await stub.readArtifact(ownerCaller, epoch.baseline)).bytes)) as { sources: Record<string, unknown>; system: string }
    expect(baseline.sources['mcp.authorization']).toEqual(['secured: needs authorization by the session owner (POST /v1/config/mcp/secured/oauth); its tools are offered once authorized'])
    expect(baseline.system).toContain('POST /v1/config/mcp/secured/oauth')
    const listed = (await (await api(`/v1/sessions/${id}/mcp`)).json()) as { items: { name: string; error: { code: string } }[] }
    expect(listed.items).toEqual([expect.objectContaining({ name: 'secured', tools: [], error: expect.objectContaining({ code: 'MCP_AUTH_REQUIRED' }) })])
  })
})
