/**
 * Remote MCP servers as a config document lists them (`mcpServers`, in a
 * principal's config or a session's overrides), and the names their tools get.
 * A tool is offered as `mcp.<server>.<tool>`; providers refuse dots in tool
 * names, so the provider dialects see `mcp__<server>__<tool>` instead (see
 * objects/llm/tool-names.ts), which must fit the vendors' 64-character limit.
 * Bearer tokens and other headers are never part of the document: they are
 * sealed per principal and server name (objects/config/config-object.ts).
 */
import { z } from 'zod'
import { NeuronError } from '../../core/errors.ts'
import { providerToolName } from '../../llm/tool-names.ts'

/** A server's name: lower-case letters, digits and `-` (no `_` or `.`, so a tool's full name parses back). */
export const McpServerName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'lower-case letters, digits and -, at most 32')

/** How long one call may go without a word from the server (progress resets it), unless the entry says otherwise. */
export const MCP_CALL_TIMEOUT_MS = 30_000
/** The most a call may take in all, progress or not. */
export const MCP_CALL_MAX_MS = 300_000

export const McpServerEntry = z.strictObject({
  name: McpServerName,
  url: z.url({ protocol: /^https?$/ }).max(2048),
  /** Per-call idle timeout in milliseconds (1 s to 5 min). */
  timeoutMs: z.number().int().min(1000).max(MCP_CALL_MAX_MS).optional(),
})

export const McpServers = z
  .array(McpServerEntry)
  .max(16)
  .refine((servers) => new Set(servers.map((server) => server.name)).size === servers.length, 'server names must be unique')

export type McpServerConfig = z.output<typeof McpServerEntry>

/**
 * The servers a config document lists; a document that does not validate lists none (it was
 * validated when stored, so this is only a guard).
 *
 * @example
 * mcpServersOf({ mcpServers: [{ name: 'notes', url: 'https://notes.example/mcp' }] }) // one server
 */
export function mcpServersOf(document: Record<string, unknown>): McpServerConfig[] {
  const parsed = McpServers.safeParse(document.mcpServers ?? [])
  return parsed.success ? parsed.data : []
}

/** The body of `PUT /v1/config/mcp/:server/headers`: what every request to that server carries. */
export const McpHeadersBody = z.strictObject({
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'an HTTP header name'), z.string().min(1).max(4096).regex(/^[\x20-\x7e]+$/, 'printable ASCII')).refine(
    (headers) => Object.keys(headers).length >= 1 && Object.keys(headers).length <= 8,
    '1 to 8 headers',
  ),
})

/**
 * Header names a principal may not set on its MCP server's requests: hop-by-hop headers and the
 * ones that frame or route the request (`host`, `content-length`, `transfer-encoding`), the
 * transport's own (`content-type`, `accept`, `mcp-*`, `last-event-id`), and the ones that speak
 * for the platform or the client (`cf-*`, `x-forwarded-*`, `forwarded`, `sec-*`, `proxy-*`,
 * `origin`, …). Set by hand, each would let a config rewrite what the request is, not add a credential.
 */
const FORBIDDEN_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect', 'content-type', 'accept', 'last-event-id', 'forwarded', 'via', 'x-real-ip', 'true-client-ip', 'origin', 'referer', 'date', 'http2-settings'])
const FORBIDDEN_PREFIXES = ['cf-', 'x-forwarded-', 'proxy-', 'sec-', 'mcp-']

/**
 * Throws `MCP_HEADER_FORBIDDEN` (400) naming every forbidden header name in `headers`.
 *
 * @example
 * checkMcpHeaderNames({ authorization: 'Bearer …' }) // ok
 * checkMcpHeaderNames({ host: 'evil.example' })     // throws MCP_HEADER_FORBIDDEN
 */
export function checkMcpHeaderNames(headers: Record<string, string>): void {
  const names = Object.keys(headers).map((name) => name.toLowerCase()).filter((name) => FORBIDDEN_HEADERS.has(name) || FORBIDDEN_PREFIXES.some((prefix) => name.startsWith(prefix)))
  if (names.length === 0) return
  throw new NeuronError('MCP_HEADER_FORBIDDEN', `these headers cannot be set on an MCP server's requests: ${names.join(', ')} (hop-by-hop, or set by the transport or the platform)`, { status: 400, details: { names } })
}

/**
 * The body of `POST /v1/config/mcp/:server/oauth` (all optional): the server's URL when the
 * principal's config document does not list it (a session's overrides may), a client the
 * authorization server issued when it registers none dynamically, and the scopes to ask for.
 */
export const McpOAuthStartBody = z.strictObject({
  url: McpServerEntry.shape.url.optional(),
  clientId: z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces').optional(),
  clientSecret: z.string().min(1).max(1024).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces').optional(),
  scope: z.string().min(1).max(1024).regex(/^[\x20-\x7e]+$/, 'printable ASCII').optional(),
})

/** The longest tool name the provider dialects accept. */
export const PROVIDER_TOOL_NAME_MAX = 64

/**
 * The canonical name of `tool` on `server`, or `TOOL_NAME_INVALID` when the provider-safe form would
 * not be accepted by a vendor (characters outside `A-Za-z0-9_-`, or too long).
 *
 * @example
 * mcpToolName('notes', 'search') // 'mcp.notes.search' (providers see 'mcp__notes__search')
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp.${server}.${tool}`
  if (!/^[A-Za-z0-9_-]+$/.test(tool) || providerToolName(name).length > PROVIDER_TOOL_NAME_MAX) {
    throw new NeuronError('TOOL_NAME_INVALID', `MCP tool ${JSON.stringify(tool.slice(0, 80))} of ${server}: a name of A-Za-z0-9_- that fits ${PROVIDER_TOOL_NAME_MAX} characters as ${providerToolName(name)}`, {
      status: 400,
      details: { server, tool: tool.slice(0, 200) },
    })
  }
  return name
}
