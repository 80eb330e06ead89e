/**
 * A session's MCP tools: the servers its effective config lists, each one's
 * tool list cached for `MCP_TOOLS_TTL_MS` (a failed listing is tried again
 * after `MCP_RETRY_MS`, never per turn), layered over the built-ins in the
 * session's `ToolRegistry` as `mcp.<server>.<tool>` under the scope
 * `mcp:<server>`. Each tool is a `jsonSchemaTool`, so a tool whose schema is
 * broken or unsafe is refused alone (with its reason kept in `status()`), and
 * every call's input is validated before the server sees it. Registrations
 * change only when a server's list changes, so a call in flight settles
 * against the registration its turn was shown.
 */
import { canonicalJson, type Json } from '../../ledger/json.ts'
import { NeuronError } from '../../errors.ts'
import { jsonSchemaTool } from '../json-schema-tool.ts'
import type { Registration, ToolRegistry } from '../registry.ts'
import { McpConnection, type McpListedTool } from './connection.ts'
import { mcpToolName, type McpServerConfig } from './servers.ts'

/** How long a server's tool list is used before it is listed again. */
export const MCP_TOOLS_TTL_MS = 5 * 60_000
/** How soon a server whose listing failed is tried again. */
export const MCP_RETRY_MS = 30_000

export interface McpToolsetDeps {
  registry: ToolRegistry
  /** The servers the session's effective config lists now. */
  servers(): Promise<McpServerConfig[]>
  /** The sealed headers of the session's owner, opened, by server name. */
  headers(): Promise<Record<string, Record<string, string>>>
  /** Whether loopback URLs may be reached (development only; see outbound.ts). */
  development: boolean
  now?(): number
}

/** What a session knows of one server: for `status()` and the tests. */
export interface McpServerStatus {
  name: string
  url: string
  tools: string[]
  refused: { tool: string; code: string; message: string }[]
  error: { code: string; message: string } | null
  listedAt: number | null
}

interface Entry {
  /** The server's config and headers, canonical: a change makes a new connection. */
  key: string
  connection: McpConnection
  registrations: Registration[]
  /** The canonical tool list last registered, to register again only on a change. */
  listed: string | null
  status: McpServerStatus
  due: number
}

/**
 * @example
 * const mcp = new McpToolset({ registry: tools, servers: async () => serversOf(config), headers, development: false })
 * await mcp.refresh() // before a drain: lists servers whose cache expired, layers their tools
 */
export class McpToolset {
  private readonly entries = new Map<string, Entry>()
  private refreshing: Promise<void> | null = null

  constructor(private readonly deps: McpToolsetDeps) {}

  /** Brings the registrations in line with the config and the cached lists; never throws. */
  refresh(): Promise<void> {
    this.refreshing ??= this.sync()
      .catch((error: unknown) => console.error('mcp: tool refresh failed', error))
      .finally(() => (this.refreshing = null))
    return this.refreshing
  }

  /** Each configured server as this session last saw it. */
  status(): McpServerStatus[] {
    return [...this.entries.values()].map((entry) => entry.status)
  }

  private async sync(): Promise<void> {
    const servers = await this.deps.servers()
    // No servers, now or before: nothing to read, not even the sealed headers.
    if (servers.length === 0 && this.entries.size === 0) return
    const headers = servers.length === 0 ? {} : await this.deps.headers()
    const wanted = new Set(servers.map((server) => server.name))
    for (const [name, entry] of this.entries) if (!wanted.has(name)) this.drop(name, entry)
    await Promise.all(servers.map((server) => this.syncServer(server, headers[server.name] ?? {})))
  }

  private async syncServer(server: McpServerConfig, headers: Record<string, string>): Promise<void> {
    const now = this.now()
    const key = canonicalJson({ server, headers } as unknown as Json)
    let entry = this.entries.get(server.name)
    if (entry && entry.key !== key) {
      this.drop(server.name, entry)
      entry = undefined
    }
    if (!entry) {
      entry = {
        key,
        connection: new McpConnection(server, headers, { development: this.deps.development }),
        registrations: [],
        listed: null,
        status: { name: server.name, url: server.url, tools: [], refused: [], error: null, listedAt: null },
        due: 0,
      }
      this.entries.set(server.name, entry)
    }
    if (now < entry.due) return
    try {
      const tools = await entry.connection.listTools()
      entry.due = now + MCP_TOOLS_TTL_MS
      entry.status.error = null
      entry.status.listedAt = now
      const listed = canonicalJson(tools as unknown as Json)
      if (listed !== entry.listed && this.entries.get(server.name) === entry) this.layer(entry, tools, listed)
    } catch (error) {
      // A server that cannot be listed keeps the tools it had (their calls fail with a coded error) and is tried again soon.
      entry.due = now + MCP_RETRY_MS
      const coded = error instanceof NeuronError ? error : new NeuronError('MCP_UNAVAILABLE', String(error), { status: 502 })
      entry.status.error = { code: coded.code, message: coded.message }
      console.warn('mcp: listing tools failed', { server: server.name, code: coded.code, message: coded.message })
    }
  }

  /** Replaces the server's registrations with its listed tools, each refused alone when it cannot be offered. */
  private layer(entry: Entry, tools: McpListedTool[], listed: string): void {
    for (const registration of entry.registrations) registration.close()
    entry.registrations = []
    entry.status.tools = []
    entry.status.refused = []
    entry.listed = listed
    const { connection } = entry
    const server = connection.server.name
    for (const listedTool of tools) {
      try {
        const name = mcpToolName(server, String(listedTool.name))
        const tool = jsonSchemaTool({
          description: `${listedTool.description ?? listedTool.name} (MCP server ${server})`,
          inputSchema: listedTool.inputSchema,
          execute: (input, context) => connection.callTool(listedTool.name, input, { signal: context.signal, ...(context.progress ? { progress: context.progress } : {}) }),
        })
        entry.registrations.push(this.deps.registry.register(name, tool, `mcp:${server}`))
        entry.status.tools.push(name)
      } catch (error) {
        const coded = error instanceof NeuronError ? error : new NeuronError('INVALID_SCHEMA', String(error))
        entry.status.refused.push({ tool: String(listedTool.name).slice(0, 200), code: coded.code, message: coded.message })
        console.warn('mcp: tool refused', { server, tool: String(listedTool.name).slice(0, 200), code: coded.code, message: coded.message })
      }
    }
  }

  private drop(name: string, entry: Entry): void {
    for (const registration of entry.registrations) registration.close()
    this.entries.delete(name)
    void entry.connection.close()
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now()
  }
}
