/**
 * A real MCP server built from the official SDK, for the MCP client's tests: Node's HTTP server on
 * 127.0.0.1 with three endpoints, each speaking the Streamable HTTP transport:
 *
 *   /sse/mcp    McpServer, stateful (an `Mcp-Session-Id` per client), answers as SSE streams
 *   /json/mcp   McpServer, stateless, answers as plain JSON
 *   /paged/mcp  the SDK's low-level Server: tools/list in pages of two (`nextCursor`)
 *   /flood/mcp  the low-level Server, hostile: `?tools=N` lists N tools (with `?pad=B` bytes of
 *               description each, `?pattern=P` on an input property); a call answers `bytes` characters
 *   /__calls    JSON: how many requests each endpoint got, by JSON-RPC method (`"/sse/mcp tools/list": 2`),
 *               by HTTP method for those without one (`"/sse/mcp DELETE": 1`), sessions opened and
 *               closed (`"/sse/mcp session.initialized"`, `"… session.closed"`), and tool calls whose
 *               `extra.signal` aborted (`"/sse/mcp aborted hang"`: the client's cancellation arrived)
 *
 * Tools: `echo` (fast), `slow` (sends progress, then answers), `hang` (silent until it answers),
 * `fail` (an `isError` result),
 * `unsafe` (its input schema has a lookahead, which has no linear-time meaning, so Neuron refuses it),
 * `lookup` (its input pattern backtracks polynomially in V8: `^a*…a*$`, k = 12; Neuron runs it on RE2),
 * `whoami` (answers the `authorization` header it was sent). Run as a script (`node
 * test/support/mcp-server.ts [port]`) it prints its base URL, so a test can kill it mid-call.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

export interface TestMcpServer {
  /** e.g. `http://127.0.0.1:40123`; endpoints are `${url}/sse/mcp`, `${url}/json/mcp`, `${url}/paged/mcp`. */
  url: string
  /** How many requests each endpoint received, by JSON-RPC method. */
  calls(): Record<string, number>
  close(): Promise<void>
}

/** The `McpServer` every endpoint but `/paged` serves; `note` hears of a tool call whose signal aborted (`aborted <tool>`). */
export function toolServer(note: (event: string) => void = () => {}): McpServer {
  const server = new McpServer({ name: 'neuron-test', version: '1.0.0' })
  server.registerTool('echo', { description: 'Echo the text back', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }))
  server.registerTool(
    'slow',
    { description: 'Answer after `ms` milliseconds, sending progress every 100 ms', inputSchema: { ms: z.number().int().min(0).max(120_000) } },
    async ({ ms }, extra) => {
      const token = extra._meta?.progressToken
      const steps = Math.max(1, Math.floor(ms / 100))
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve) => setTimeout(resolve, ms / steps).unref())
        if (extra.signal.aborted) {
          note('aborted slow')
          return { content: [{ type: 'text', text: 'cancelled' }], isError: true }
        }
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` } })
        }
      }
      return { content: [{ type: 'text', text: `slept ${ms} ms` }] }
    },
  )
  server.registerTool('hang', { description: 'Answer after `ms` milliseconds, silently', inputSchema: { ms: z.number().int().min(0).max(120_000) } }, async ({ ms }, extra) => {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms).unref()
      extra.signal.addEventListener('abort', () => (note('aborted hang'), clearTimeout(timer), resolve(null)), { once: true })
    })
    return { content: [{ type: 'text', text: `hung ${ms} ms` }] }
  })
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'the fail tool failed on purpose' }],
    isError: true,
  }))
  server.registerTool('unsafe', { description: 'A schema Neuron must refuse', inputSchema: { word: z.string().regex(/^(?=a)a+$/) } }, async () => ({
    content: [{ type: 'text', text: 'unreachable' }],
  }))
  server.registerTool('lookup', { description: 'Look a word up', inputSchema: { q: z.string().regex(new RegExp(`^${'a*'.repeat(12)}$`)) } }, async ({ q }) => ({
    content: [{ type: 'text', text: `found ${q}` }],
  }))
  server.registerTool('whoami', { description: 'The authorization header this server was sent', inputSchema: {} }, async (_args, extra) => ({
    content: [{ type: 'text', text: String(extra.requestInfo?.headers.authorization ?? 'anonymous') }],
  }))
  return server
}

/** The low-level server: five tools listed two per page. */
function pagedServer(): Server {
  const server = new Server({ name: 'neuron-paged', version: '1.0.0' }, { capabilities: { tools: {} } })
  const tools = ['one', 'two', 'three', 'four', 'five'].map((name) => ({
    name,
    description: `tool ${name}`,
    inputSchema: { type: 'object' as const, properties: {} },
  }))
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0)
    const next = start + 2
    return { tools: tools.slice(start, next), ...(next < tools.length ? { nextCursor: String(next) } : {}) }
  })
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `called ${request.params.name}` }] }))
  return server
}

/** The hostile server: as many tools, as long descriptions and as large results as asked for. */
function floodServer(query: URLSearchParams): Server {
  const server = new Server({ name: 'neuron-flood', version: '1.0.0' }, { capabilities: { tools: {} } })
  const pad = 'x'.repeat(Number(query.get('pad') ?? 0))
  const pattern = query.get('pattern')
  const properties = pattern === null ? {} : { q: { type: 'string', pattern } }
  const tools = Array.from({ length: Number(query.get('tools') ?? 1) }, (_, i) => ({ name: `t${i}`, description: `tool ${i} ${pad}`, inputSchema: { type: 'object' as const, properties } }))
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: 'r'.repeat(Number(request.params.arguments?.bytes ?? 1)) }] }))
  return server
}

/**
 * @example
 * const mcp = await startMcpServer()
 * // point a session's config at `${mcp.url}/sse/mcp`
 * await mcp.close()
 */
export async function startMcpServer(port = 0): Promise<TestMcpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const counts: Record<string, number> = {}
  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`test MCP server failed: ${String(error)}`)
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    const body: unknown = text ? JSON.parse(text) : undefined
    const path = (req.url ?? '').split('?')[0]
    if (path === '/__calls') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts))
    const count = (what: string) => void (counts[`${path} ${what}`] = (counts[`${path} ${what}`] ?? 0) + 1)
    if (req.method === 'DELETE') count('DELETE')
    for (const message of [body].flat()) {
      const method = (message as { method?: string } | undefined)?.method
      if (method) count(method)
    }
    if (path === '/sse/mcp') {
      const id = req.headers['mcp-session-id']
      let transport = typeof id === 'string' ? sessions.get(id) : undefined
      if (!transport) {
        if (typeof id === 'string') return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }))
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void (sessions.set(sid, transport!), count('session.initialized')),
          onsessionclosed: (sid) => void (sessions.delete(sid), count('session.closed')),
        })
        await toolServer(count).connect(transport)
      }
      return transport.handleRequest(req, res, body)
    }
    if (path === '/json/mcp' || path === '/paged/mcp' || path === '/flood/mcp') {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '')
      await (path === '/json/mcp' ? toolServer(count) : path === '/paged/mcp' ? pagedServer() : floodServer(query)).connect(transport)
      res.on('close', () => void transport.close())
      return transport.handleRequest(req, res, body)
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not an MCP endpoint')
  }

  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    calls: () => ({ ...counts }),
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => {})))
      await new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      })
    },
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startMcpServer(Number(process.argv[2] ?? 0))
  console.log(server.url)
}
