/**
 * `/v1/mcp`: Neuron as an MCP server over the Streamable HTTP transport,
 * stateless (no `Mcp-Session-Id`; every POST is answered as plain JSON), behind
 * the same gate as every /v1 route: the bearer token is checked once there and
 * the tools act as its principal (worker/mcp/server.ts). There is no standalone
 * server-to-client stream: GET is 405, as the transport lets a server say.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { Hono } from 'hono'
import { NeuronError } from '../../objects/core/errors.ts'
import { failureResponse } from '../../objects/core/failure.ts'
import { MAX_BODY_BYTES } from '../../objects/core/limits.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { neuronMcpServer } from '../mcp/server.ts'

export const mcp = new Hono<AppEnv>()
  .post('/', limitBody(MAX_BODY_BYTES), async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await neuronMcpServer(c.env, callerOf(c)).connect(transport)
    return transport.handleRequest(c.req.raw)
  })
  .get('/', () => {
    const refused = failureResponse(new NeuronError('METHOD_NOT_ALLOWED', 'this MCP endpoint is stateless: POST JSON-RPC messages; it offers no GET stream', { status: 405 }), 'mcp')
    refused.headers.set('allow', 'POST')
    return refused
  })
