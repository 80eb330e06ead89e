/**
 * `neuron mcp`: the caller's remote MCP servers from the terminal. `list` shows
 * each server the config document lists with its stored header names and its
 * OAuth state; `authorize` prints the URL to open in a browser and waits until
 * the authorization server has sent the browser back to Neuron; `forget` drops
 * the server's tokens. Tokens never reach the terminal: Neuron keeps them.
 */
import type { NeuronClient } from '../index.ts'
import type { McpAuthorizeInput } from '../types.ts'
import type { Style } from './render.ts'

/** How often `authorize` asks whether the authorization came back. */
const POLL_MS = 1000

export interface McpCommand {
  action: 'list' | 'authorize' | 'forget'
  server?: string
  input: McpAuthorizeInput
  wait: boolean
}

/**
 * Runs one `neuron mcp` action; the exit code.
 *
 * @example
 * await mcp(client, { action: 'authorize', server: 'notes', input: {}, wait: true }, { json: false, style, write })
 */
export async function mcp(client: NeuronClient, command: McpCommand, options: { json: boolean; style: Style; write(text: string): void; signal?: AbortSignal }): Promise<number> {
  const { json, style, write } = options
  if (command.action === 'list') {
    const [document, headers, grants] = await Promise.all([client.config.get(), client.mcp.headers(), client.mcp.authorizations()])
    const listed = ((document.document as { mcpServers?: { name: string; url: string }[] }).mcpServers ?? []).map((entry) => ({ name: entry.name, url: entry.url }))
    const names = [...new Set([...listed.map((entry) => entry.name), ...headers.map((h) => h.server), ...grants.map((g) => g.server)])]
    const rows = names.map((name) => ({
      server: name,
      url: listed.find((entry) => entry.name === name)?.url ?? grants.find((g) => g.server === name)?.url ?? null,
      headers: headers.find((h) => h.server === name)?.names ?? [],
      oauth: grants.find((g) => g.server === name) ?? null,
    }))
    if (json) write(`${JSON.stringify(rows)}\n`)
    else if (rows.length === 0) write(style.dim('no MCP servers: add them to mcpServers in your config\n'))
    else {
      for (const row of rows) {
        const oauth = row.oauth?.authorized ? style.cyan('authorized') : row.oauth?.pending ? 'authorization started' : style.dim('no OAuth')
        write(`${row.server}  ${row.url ?? style.dim('(not in the config)')}  ${oauth}${row.headers.length ? `  headers: ${row.headers.join(', ')}` : ''}\n`)
      }
    }
    return 0
  }
  const server = command.server!
  if (command.action === 'forget') {
    const result = await client.mcp.forget(server)
    write(json ? `${JSON.stringify(result)}\n` : result.deleted ? `forgot the OAuth grant of ${server}\n` : `${server} had no OAuth grant\n`)
    return 0
  }
  const before = (await client.mcp.authorizations()).find((g) => g.server === server)?.setAt ?? null
  const started = await client.mcp.authorize(server, command.input)
  write(json ? `${JSON.stringify(started)}\n` : `Open this URL in a browser to authorize ${server} (until ${started.expiresAt}):\n\n  ${started.authorizationUrl}\n\n`)
  if (!command.wait) return 0
  const deadline = Date.parse(started.expiresAt)
  while (Date.now() < deadline && !options.signal?.aborted) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    const grant = (await client.mcp.authorizations()).find((g) => g.server === server)
    if (grant?.authorized && grant.setAt !== before) {
      write(json ? `${JSON.stringify({ server, authorized: true })}\n` : `${style.cyan('authorized')}: your sessions use ${server} from their next turn\n`)
      return 0
    }
  }
  write(json ? `${JSON.stringify({ server, authorized: false })}\n` : `${style.red('not authorized')}: the authorization did not come back in time; run this again\n`)
  return 1
}
