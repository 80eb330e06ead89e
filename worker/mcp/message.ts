/**
 * What `POST /v1/mcp` reads, for the OpenAPI document: a JSON-RPC 2.0 message
 * (or a batch of them). The MCP SDK's transport parses and checks the body
 * itself; this schema only describes it.
 */
import { z } from 'zod'

const Message = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
})

export const McpMessage = z.union([Message, z.array(Message)])
