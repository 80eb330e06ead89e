/**
 * A session's MCP tools: the servers its effective config lists, each one's
 * tool list cached for `MCP_TOOLS_TTL_MS` (a failed listing is tried again
 * after `MCP_RETRY_MS`, never per turn), layered over the built-ins in the
 * session's `ToolRegistry` as `mcp.<server>.<tool>` under the scope
 * `mcp:<server>`. Each tool is a `jsonSchemaTool`, so a tool whose schema is
 * broken or unsafe is refused alone (with its reason kept in `status()`), and
 * every call's input is validated before the server sees it. Registrations
 * change only when a server's list changes, so a call in flight settles
 * against the registration its turn was shown. A server whose owner gains or
 * loses an OAuth grant is connected and listed again at once, not after the
 * retry delay, so authorizing a server takes effect at the next turn.
 */
import { canonicalJson, type Json } from '../../ledger/json.ts'
import { NeuronError } from '../../core/errors.ts'
import { jsonSchemaTool } from '../json-schema-tool.ts'
import type { Registration, ToolRegistry } from '../registry.ts'
import { McpConnection, type McpListedTool } from './connection.ts'
import { type AskToken, Bearer } from './oauth/bearer.ts'
import { mcpToolName, type McpServerConfig } from './servers.ts'

/** How long a server's tool list is used before it is listed again. */
export const MCP_TOOLS_TTL_MS = 5 * 60_000
/** How soon a server whose listing failed is tried again. */
export const MCP_RETRY_MS = 30_000

export interface McpToolsetDeps {
  registry: ToolRegistry
  /** The servers the session's effective config lists now. */
  servers(): Promise<McpServerConfig[]>
  /** The owner's sealed headers, opened, and its OAuth grant ids, by server name. */
  access(): Promise<{ headers: Record<string, Record<string, string>>; grants: Record<string, string> }>
  /** The owner's OAuth access token for a server with a grant (see oauth/bearer.ts). */
  token(server: string, url: string, stale?: string): ReturnType<AskToken>
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
  error: { code: string; message: string; details?: Record<string, unknown> } | null
  listedAt: number | null
}

interface Entry {
  /** The server's config, headers and grant id, canonical: a change makes a new connection. */
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

  /**
   * What the model is told of servers it cannot use until their owner authorizes them (a context
   * source): one line per server, or null when none waits for authorization.
   *
   * @example
   * mcp.authorizationNote() // ['notes: needs authorization by the session owner (POST /v1/config/mcp/notes/oauth); its tools …']
   */
  authorizationNote(): string[] | null {
    const waiting = this.status().filter((status) => status.error?.code === 'MCP_AUTH_REQUIRED')
    if (waiting.length === 0) return null
    return waiting.map((status) => `${status.name}: needs authorization by the session owner (POST /v1/config/mcp/${status.name}/oauth); its tools are offered once authorized`)
  }

  private async sync(): Promise<void> {
    const servers = await this.deps.servers()
    // No servers, now or before: nothing to read, not even the sealed headers.
    if (servers.length === 0 && this.entries.size === 0) return
    const { headers, grants } = servers.length === 0 ? { headers: {}, grants: {} } : await this.deps.access()
    const wanted = new Set(servers.map((server) => server.name))
    for (const [name, entry] of this.entries) if (!wanted.has(name)) this.drop(name, entry)
    await Promise.all(servers.map((server) => this.syncServer(server, headers[server.name] ?? {}, grants[server.name] ?? null)))
  }

  private async syncServer(server: McpServerConfig, headers: Record<string, string>, grant: string | null): Promise<void> {
    const now = this.now()
    const key = canonicalJson({ server, headers, grant } as unknown as Json)
    let entry = this.entries.get(server.name)
    if (entry && entry.key !== key) {
      this.drop(server.name, entry)
      entry = undefined
    }
    if (!entry) {
      entry = {
        key,
        connection: new McpConnection(server, headers, { development: this.deps.development }, grant ? new Bearer((stale) => this.deps.token(server.name, server.url, stale)) : null),
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
      entry.status.error = { code: coded.code, message: coded.message, ...(coded.details ? { details: coded.details } : {}) }
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
          // The connection carries the owner's sealed headers and OAuth grant.
          require: 'owner',
          // Every MCP tool may act: it asserts policy before the server sees the call (objects/permission/).
          execute: async (input, context) => {
            await context.permission.assert({ tool: name, source: `mcp:${server}`, subjects: [], input, reason: `${name} calls the MCP server ${server}` })
            return connection.callTool(listedTool.name, input, { signal: context.signal, ...(context.progress ? { progress: context.progress } : {}) })
          },
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
