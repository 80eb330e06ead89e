/**
 * `/v1/mcp`: Neuron as an MCP server over the Streamable HTTP transport,
 * stateless (no `Mcp-Session-Id`; every POST is answered as plain JSON), behind
 * the same gate as every /v1 route: the bearer token is checked once there and
 * the tools act as its principal (worker/mcp/server.ts). There is no standalone
 * server-to-client stream: GET is 405, as the transport lets a server say.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { NeuronError } from '../../objects/core/errors.ts'
import { failureResponse } from '../../objects/core/failure.ts'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { callerOf } from '../caller.ts'
import { McpMessage } from '../mcp/message.ts'
import { neuronMcpServer } from '../mcp/server.ts'
import * as R from '../openapi/responses.ts'
import { mount, route } from '../route.ts'

/**
 * The `/v1/mcp` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * MCP_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const MCP_ROUTES = [
  route({
    method: 'post',
    path: '/v1/mcp',
    operationId: 'mcp',
    summary: 'Neuron as an MCP server (Streamable HTTP, stateless, JSON answers): tools session_create, session_prompt, session_history, session_list, session_interrupt, acting as the caller',
    auth: 'bearer',
    body: McpMessage,
    maxBodyBytes: MAX_BODY_BYTES,
    ok: { 200: 'a JSON-RPC response (a tool failure is a result with isError and { error: { code, message } })', 202: 'a notification or response, accepted' },
    response: R.JsonRpc,
    // The MCP transport reads the body itself: a message it cannot take is a JSON-RPC error, not a Neuron code.
    errors: ['PAYLOAD_TOO_LARGE'],
    failures: {
      400: { description: 'not JSON, or not a JSON-RPC message (-32700, -32600)', response: R.JsonRpcError },
      406: { description: 'Accept does not name both application/json and text/event-stream (-32000)', response: R.JsonRpcError },
      415: { description: 'Content-Type is not application/json (-32000)', response: R.JsonRpcError },
    },
    handler: async (c) => {
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await neuronMcpServer(c.env, callerOf(c), c.get('extensions').agents).connect(transport)
      return transport.handleRequest(c.req.raw)
    },
  }),
  route({
    method: 'get',
    path: '/v1/mcp',
    operationId: 'mcpStream',
    summary: 'Not offered: the MCP endpoint is stateless and has no GET stream (405, Allow: POST)',
    auth: 'bearer',
    ok: {},
    errors: ['METHOD_NOT_ALLOWED'],
    handler: () => {
      const refused = failureResponse(new NeuronError('METHOD_NOT_ALLOWED', 'this MCP endpoint is stateless: POST JSON-RPC messages; it offers no GET stream', { status: 405 }), 'mcp')
      refused.headers.set('allow', 'POST')
      return refused
    },
  }),
]

/** The `/v1/mcp` router, mounted by worker/neuron.ts: `app.route('/v1/mcp', mcp)`. */
export const mcp = mount('/v1/mcp', MCP_ROUTES)
