/**
 * A session's MCP toolset against the official SDK's server: the tool list is
 * cached for its TTL (a failed listing is retried after MCP_RETRY_MS, not per
 * turn), an unchanged list keeps its registrations (a call in flight stays
 * valid), a removed server's tools are gone, and a refused tool is reported.
 */
import { describe, expect, inject, it } from 'vitest'
import { ToolRegistry } from '../../../objects/tools/registry.ts'
import { MCP_RETRY_MS, MCP_TOOLS_TTL_MS, McpToolset } from '../../../objects/tools/mcp/toolset.ts'
import type { McpServerConfig } from '../../../objects/tools/mcp/servers.ts'

const base = inject('mcpServerUrl')
const lists = async (path: string) => ((await (await fetch(`${base}/__calls`)).json()) as Record<string, number>)[`${path} tools/list`] ?? 0

function toolset(servers: () => McpServerConfig[]) {
  const registry = new ToolRegistry()
  const clock = { now: 1_000 }
  const mcp = new McpToolset({ registry, servers: async () => servers(), access: async () => ({ headers: {}, grants: {} }), token: async () => null, development: true, now: () => clock.now })
  return { registry, clock, mcp }
}

describe('McpToolset', () => {
  it('lists once per TTL and keeps registrations while the list is unchanged', async () => {
    const { registry, clock, mcp } = toolset(() => [{ name: 'test', url: `${base}/json/mcp` }])
    const before = await lists('/json/mcp')
    await mcp.refresh()
    const echo = registry.resolve('mcp.test.echo')!
    expect(echo.scope).toBe('mcp:test')
    clock.now += MCP_TOOLS_TTL_MS - 1
    await mcp.refresh()
    expect((await lists('/json/mcp')) - before).toBe(1)
    clock.now += 2
    await mcp.refresh()
    expect((await lists('/json/mcp')) - before).toBe(2)
    // Same list: the same registration, so a call the model was shown before still settles.
    expect(registry.resolve('mcp.test.echo')).toBe(echo)
    expect(echo.active).toBe(true)
    const [status] = mcp.status()
    expect(status!.refused).toEqual([expect.objectContaining({ tool: 'unsafe', code: 'INVALID_SCHEMA' })])
    expect(status!.tools).not.toContain('mcp.test.unsafe')
  })

  it("drops a server's tools when the config no longer lists it", async () => {
    let servers: McpServerConfig[] = [{ name: 'paged', url: `${base}/paged/mcp` }]
    const { registry, mcp } = toolset(() => servers)
    await mcp.refresh()
    expect([...registry.snapshot().keys()]).toEqual(['mcp.paged.one', 'mcp.paged.two', 'mcp.paged.three', 'mcp.paged.four', 'mcp.paged.five'])
    servers = []
    await mcp.refresh()
    expect(registry.snapshot().size).toBe(0)
    expect(mcp.status()).toEqual([])
  })

  it('retries a server that could not be listed after MCP_RETRY_MS, not on every refresh', async () => {
    const { registry, clock, mcp } = toolset(() => [{ name: 'down', url: 'http://127.0.0.1:1/mcp' }])
    await mcp.refresh()
    expect(mcp.status()[0]!.error).toMatchObject({ code: 'MCP_UNAVAILABLE' })
    const failedAt = mcp.status()[0]!.error
    clock.now += MCP_RETRY_MS - 1
    await mcp.refresh()
    expect(mcp.status()[0]!.error).toBe(failedAt)
    expect(registry.snapshot().size).toBe(0)
  })
})
