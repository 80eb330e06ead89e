/**
 * One MCP server as a session reaches it: the official SDK's `Client` over its
 * `StreamableHTTPClientTransport` (initialize, `Mcp-Session-Id`, JSON or SSE
 * answers, progress notifications, cancellation), with tools' output schemas
 * validated like every schema from outside the code (output-schemas.ts: patterns
 * on the linear-time engine). The URL passes the outbound
 * policy (outbound/policy.ts) before anything is sent, every hop of it, and
 * every answer is read as a bounded stream (outbound/fetch.ts). Every request is bounded in
 * time, and every failure is a `NeuronError` with an `MCP_*` code. A failed
 * connection is dropped, so the next use initializes a new one. An aborted
 * call (an interrupt) keeps the connection: the SDK's `notifications/cancelled`
 * is a POST on it, and closing would abort that POST before it left, so the
 * server's handler would run on. Closing ends the server's session with the
 * `DELETE` the transport defines, bounded like every request.
 *
 * Authorization is a named stage in front of the transport's fetch
 * (`authorizing`): it adds the owner's OAuth access token when there is a grant,
 * asks for a fresh one once when the server answers 401, and otherwise turns a
 * 401 into `MCP_AUTH_REQUIRED`, which says how the owner authorizes the server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { NeuronError } from '../../core/errors.ts'
import { type McpCallResult, resultText } from './content.ts'
import type { Bearer } from './oauth/bearer.ts'
import { outputSchemas } from './output-schemas.ts'
import { MAX_MCP_LIST_BYTES, MAX_MCP_PATTERN_COST, MAX_MCP_RESPONSE_BYTES, MAX_MCP_RESULT_BYTES, MAX_MCP_TOOLS } from '../../core/limits.ts'
import { schemaPatternCost } from '../../ledger/schema-check.ts'
import { utf8Length } from '../../ledger/json.ts'
import { outboundFetch } from '../../outbound/fetch.ts'
import { checkOutboundUrl, type OutboundPolicy } from '../../outbound/policy.ts'
import { MCP_CALL_MAX_MS, MCP_CALL_TIMEOUT_MS, type McpServerConfig } from './servers.ts'

/** How long connecting or one page of `tools/list` may take. */
export const MCP_LIST_TIMEOUT_MS = 10_000
/** Pages of `tools/list` read at most: a server cannot make a session read forever. */
export const MCP_MAX_LIST_PAGES = 16
/** How long closing waits for the server to acknowledge the end of its session (`DELETE`). */
export const MCP_CLOSE_TIMEOUT_MS = 5_000

/** A tool as the server listed it. */
export interface McpListedTool {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
}

export interface Progress {
  progress: number
  total?: number
  message?: string
}

/**
 * @example
 * const server = new McpConnection({ name: 'notes', url: 'https://notes.example/mcp' }, { authorization: 'Bearer …' }, { development: false })
 * const tools = await server.listTools()
 * const text = await server.callTool('search', { q: 'x' }, { signal, progress: (p) => show(p) })
 */
export class McpConnection {
  private client: Promise<{ client: Client; transport: StreamableHTTPClientTransport }> | null = null

  constructor(
    readonly server: McpServerConfig,
    private readonly headers: Record<string, string> = {},
    /** Whether loopback may be reached (see outbound/policy.ts). */
    private readonly policy: OutboundPolicy = { development: false },
    /** The owner's OAuth access token for this server, when it has a grant. */
    private readonly bearer: Bearer | null = null,
  ) {}

  /** Every tool the server lists, across pages. */
  async listTools(): Promise<McpListedTool[]> {
    return this.use(null, async (client) => {
      const tools: McpListedTool[] = []
      let bytes = 0
      let patterns = 0
      let cursor: string | undefined
      for (let page = 0; page < MCP_MAX_LIST_PAGES; page++) {
        const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: MCP_LIST_TIMEOUT_MS })
        tools.push(...(listed.tools as McpListedTool[]))
        bytes += utf8Length(JSON.stringify(listed.tools))
        for (const tool of listed.tools) patterns += schemaPatternCost(tool.inputSchema) + schemaPatternCost(tool.outputSchema)
        const details = { server: this.server.name, tools: tools.length, bytes, patterns }
        if (tools.length > MAX_MCP_TOOLS) throw new NeuronError('MCP_TOO_MANY_TOOLS', `${this.server.name} lists more than ${MAX_MCP_TOOLS} tools`, { status: 502, details: { ...details, limit: MAX_MCP_TOOLS } })
        if (bytes > MAX_MCP_LIST_BYTES) throw new NeuronError('MCP_LIST_TOO_LARGE', `${this.server.name}'s tool list is over ${MAX_MCP_LIST_BYTES} bytes`, { status: 502, details: { ...details, limit: MAX_MCP_LIST_BYTES } })
        if (patterns > MAX_MCP_PATTERN_COST) throw new NeuronError('MCP_LIST_TOO_LARGE', `${this.server.name}'s tool schemas' patterns cost ${patterns} to compile; the limit is ${MAX_MCP_PATTERN_COST}`, { status: 502, details: { ...details, limit: MAX_MCP_PATTERN_COST } })
        cursor = listed.nextCursor
        if (cursor === undefined) return tools
      }
      throw new NeuronError('MCP_ERROR', `${this.server.name} listed more than ${MCP_MAX_LIST_PAGES} pages of tools`, { status: 502 })
    })
  }

  /** Calls `tool`; its result as text, or `MCP_TOOL_ERROR` with the server's text when it reports an error. */
  async callTool(tool: string, input: unknown, options: { signal: AbortSignal; progress?(update: Progress): void }): Promise<string> {
    const result = (await this.use(options.signal, (client) =>
      client.callTool({ name: tool, arguments: (input ?? {}) as Record<string, unknown> }, undefined, {
        signal: options.signal,
        timeout: this.server.timeoutMs ?? MCP_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: MCP_CALL_MAX_MS,
        onprogress: (update) => options.progress?.({ progress: update.progress, ...(update.total === undefined ? {} : { total: update.total }), ...(update.message === undefined ? {} : { message: update.message }) }),
      }),
    )) as McpCallResult
    const text = resultText(result)
    const bytes = utf8Length(text)
    if (bytes > MAX_MCP_RESULT_BYTES) throw new NeuronError('MCP_RESULT_TOO_LARGE', `${this.server.name}.${tool} answered ${bytes} bytes; the limit is ${MAX_MCP_RESULT_BYTES}`, { status: 502, details: { server: this.server.name, bytes, limit: MAX_MCP_RESULT_BYTES } })
    if (result.isError) throw new NeuronError('MCP_TOOL_ERROR', text || `${this.server.name}.${tool} reported an error`, { status: 502 })
    return text
  }

  /**
   * Retires the connection: ends the server's session when it has one (`DELETE` with its
   * `Mcp-Session-Id`; a stateless server has none), waiting at most `MCP_CLOSE_TIMEOUT_MS`, then
   * closes the transport.
   */
  async close(): Promise<void> {
    const connected = this.client
    this.client = null
    const open = await connected?.catch(() => null)
    if (!open) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, MCP_CLOSE_TIMEOUT_MS)))
    await Promise.race([open.transport.terminateSession().catch(() => {}), bound])
    clearTimeout(timer)
    await open.client.close().catch(() => {})
  }

  /**
   * Runs `work` on a connected client; a failure that is the connection's drops it and is coded.
   * A call its caller aborted fails with the abort's reason and keeps the connection (the SDK
   * reports an abort as a timeout, which would otherwise close it).
   */
  private async use<T>(signal: AbortSignal | null, work: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await work((await this.connect()).client)
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error
      const coded = this.coded(error)
      if (coded.code !== 'MCP_TOOL_ERROR' && coded.code !== 'MCP_ERROR') void this.close()
      throw coded
    }
  }

  private connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    this.client ??= (async () => {
      const send = outboundFetch(this.policy, { refused: 'MCP_URL_REFUSED', tooLarge: 'MCP_RESPONSE_TOO_LARGE', maxBytes: MAX_MCP_RESPONSE_BYTES })
      const transport = new StreamableHTTPClientTransport(checkOutboundUrl(this.server.url, this.policy, 'MCP_URL_REFUSED'), {
        requestInit: { headers: this.headers },
        fetch: authorizing(this.server.name, this.bearer, withoutStandaloneStream(send)),
      })
      const client = new Client({ name: 'neuron', version: '1' }, { jsonSchemaValidator: outputSchemas })
      // A call's answer stream that breaks (the server died) is lost: the SDK resumes only streams the
      // server made resumable, and otherwise waits for the timeout. Closing the connection fails the
      // calls in flight at once (`MCP_UNAVAILABLE`); the SDK reports the break only as this message.
      client.onerror = (error) => {
        if (/SSE stream disconnected/.test(error.message)) void this.close()
      }
      await client.connect(transport, { timeout: MCP_LIST_TIMEOUT_MS })
      return { client, transport }
    })()
    this.client.catch(() => (this.client = null))
    return this.client
  }

  private coded(error: unknown): NeuronError {
    if (error instanceof NeuronError) return error
    const name = this.server.name
    const details = { server: name }
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) return new NeuronError('MCP_TIMEOUT', `${name} did not answer in time: ${error.message}`, { status: 504, details, cause: error })
      if (error.code === ErrorCode.ConnectionClosed) return new NeuronError('MCP_UNAVAILABLE', `${name} closed the connection: ${error.message}`, { status: 502, details, cause: error })
      return new NeuronError('MCP_ERROR', `${name}: ${error.message}`, { status: 502, details: { ...details, rpcCode: error.code }, cause: error })
    }
    if (error instanceof StreamableHTTPError) {
      return new NeuronError('MCP_UNAVAILABLE', `${name} answered HTTP ${error.code ?? '?'}: ${error.message}`, { status: 502, details: { ...details, httpStatus: error.code ?? null }, cause: error })
    }
    return new NeuronError('MCP_UNAVAILABLE', `${name} is unreachable: ${error instanceof Error ? error.message : String(error)}`, { status: 502, details, cause: error })
  }
}

/**
 * The transport's fetch, minus the standalone GET stream the SDK opens after initializing. Neuron
 * serves no server-initiated requests, and an open response body would keep the session's Durable
 * Object awake (and billed) for as long as the server holds it; answering 405 is what the protocol
 * lets a server say when it offers no such stream, and the SDK then goes on without one.
 */
const withoutStandaloneStream =
  (next: typeof fetch): typeof fetch =>
  (input, init) =>
    init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : next(input, init)

/**
 * The authorization stage: the OAuth token when the owner has a grant (it replaces a stored
 * `authorization` header), one retry with a fresh token when the server refuses it, and
 * `MCP_AUTH_REQUIRED` for a 401 nothing can fix here.
 *
 * @example
 * const send = authorizing('notes', bearer, fetch) // a fetch for the transport
 */
export function authorizing(server: string, bearer: Bearer | null, next: typeof fetch): typeof fetch {
  return async (input, init) => {
    const send = (token: string | null) => {
      if (token === null) return next(input, init)
      const headers = new Headers(init?.headers)
      headers.set('authorization', `Bearer ${token}`)
      return next(input, { ...init, headers })
    }
    const token = bearer ? await bearer.token() : null
    let response = await send(token)
    if (response.status !== 401) return response
    const fresh = token !== null ? await bearer!.refused(token) : null
    if (fresh !== null) {
      await response.body?.cancel()
      response = await send(fresh)
      if (response.status !== 401) return response
    }
    await response.body?.cancel()
    throw authRequired(server, response)
  }
}

/**
 * `MCP_AUTH_REQUIRED`: the server wants authorization the owner has not given (or no longer holds).
 *
 * @example
 * authRequired('notes', response).details // { server: 'notes', authorize: 'POST /v1/config/mcp/notes/oauth', resourceMetadata: '…' }
 */
export function authRequired(server: string, response?: Response): NeuronError {
  const resourceMetadata = response ? extractWWWAuthenticateParams(response).resourceMetadataUrl?.href : undefined
  const authorize = `POST /v1/config/mcp/${server}/oauth`
  return new NeuronError('MCP_AUTH_REQUIRED', `MCP server ${server} needs authorization: its owner authorizes it with ${authorize} (neuron mcp authorize ${server}), then opens the URL it answers`, {
    status: 502,
    details: { server, authorize, ...(resourceMetadata ? { resourceMetadata } : {}) },
  })
}
