/**
 * Neuron as an MCP server: the tools an MCP client (an IDE, another agent) is
 * offered at `POST /v1/mcp`, for one authenticated caller. Each tool calls the
 * same session objects, through the same helpers (worker/session-calls.ts), as
 * the REST routes, so authorization and validation happen where they always do.
 * A failure is a tool result with `isError` and the usual
 * `{ error: { code, message } }` body, so an MCP client sees the same codes.
 * Built per request (stateless), with the SDK's `McpServer` and the JSON Schema
 * validator that runs in workerd.
 *
 * Each tool declares its result's shape (`outputSchema`, the same JSON Schema the REST
 * route's response is documented with, worker/openapi/responses.ts) and answers it as
 * `structuredContent` as well as JSON text. The tool list never changes during a
 * connection (every request builds the same server), and a stateless server has no
 * stream to notify on, so `tools.listChanged` is not advertised.
 */
import type { AgentProfile } from '../../objects/agents/profile.ts'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker'
import { z } from 'zod'
import type { Caller } from '../../objects/access/authorize.ts'
import type { Env } from '../../objects/core/env.ts'
import { failureOf } from '../../objects/core/failure.ts'
import { PermissionAnswerSchema } from '../../objects/permission/approvals.ts'
import { InterruptSchema } from '../../objects/session/intake/control.ts'
import { PageQuery } from '../../objects/delivery/queries.ts'
import { CreateSessionSchema } from '../../objects/session/intake/schemas.ts'
import { Identifier } from '../../objects/core/validate.ts'
import { refuseAgentClaims } from '../gate/spawn.ts'
import * as R from '../openapi/responses.ts'
import { createSession, listSessions, sessionStub } from '../session-calls.ts'
import { settleTurn } from './settle-turn.ts'

/** The longest `session_prompt` waits for its turn to settle before it answers with the message id. */
export const MCP_PROMPT_WAIT_MAX_MS = 55_000

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean }

/** A tool handler's value as MCP content (text and structured), or its failure as a coded `isError` result. */
async function answer(work: () => Promise<unknown>): Promise<ToolResult> {
  try {
    const value = (await work()) as Record<string, unknown>
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value }
  } catch (thrown) {
    return { content: [{ type: 'text', text: JSON.stringify({ error: failureOf(thrown, 'mcp tool').error }) }], isError: true }
  }
}

const Session = { session: Identifier.describe('the session id') }

/** A documented JSON Schema as the zod object the SDK lists as `outputSchema` and checks `structuredContent` with. */
const output = (schema: Record<string, unknown>) => z.fromJSONSchema(schema as never) as z.ZodObject

const obj = (properties: Record<string, unknown>) => ({ type: 'object', required: Object.keys(properties), properties })
/** What each tool answers: the REST route's documented response, or the turn as `session_prompt` waits for it. Built once, on first use. */
let outputs: ReturnType<typeof outputSchemas> | undefined
const outputSchemas = () => ({
  session_create: output(obj({ session: R.SessionView, created: { type: 'boolean' } })),
  session_prompt: output(
    obj({
      status: { enum: ['settled', 'running'] },
      reply: { type: 'string', description: "the assistant's text after the prompt" },
      failures: { type: 'array', items: obj({ code: { type: 'string' }, message: { type: 'string' } }) },
      messageId: { type: 'string' },
      sequence: { type: 'integer' },
      duplicate: { type: 'boolean' },
    }),
  ),
  session_history: output(R.Page),
  session_list: output(R.SessionListings),
  session_interrupt: output(R.Interrupted),
  session_permissions: output(R.PendingPermissions),
  session_answer_permission: output(R.PermissionAnswered),
})

/**
 * @example
 * const server = neuronMcpServer(c.env, callerOf(c), c.get('extensions').agents)
 * await server.connect(transport)
 */
export function neuronMcpServer(env: Env, caller: Caller, agents: ReadonlyMap<string, AgentProfile>): McpServer {
  const OUTPUTS = (outputs ??= outputSchemas())
  const server = new McpServer({ name: 'neuron', version: '1' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })
  server.registerTool(
    'session_create',
    {
      description: 'Create a session you own (optionally with a chosen id, a model as provider/model, a title, a system prompt and the agent profile it runs).',
      inputSchema: CreateSessionSchema.shape,
      outputSchema: OUTPUTS.session_create,
    },
    (input) =>
      answer(async () => {
        refuseAgentClaims(caller.claims)
        return createSession(env, caller, input, agents)
      }),
  )
  server.registerTool(
    'session_prompt',
    {
      description:
        'Send a prompt to a session. Waits (up to waitMs, default 30000) for the turn to settle and answers the reply; ' +
        'if it has not settled by then, answers the message id and status "running" (read the rest with session_history).',
      inputSchema: {
        ...Session,
        text: z.string().min(1).max(256 * 1024),
        id: Identifier.optional().describe('the message id; the same id again is the same prompt (exactly once)'),
        delivery: z.enum(['steer', 'queue']).optional(),
        waitMs: z.number().int().min(0).max(MCP_PROMPT_WAIT_MAX_MS).optional(),
      },
      outputSchema: OUTPUTS.session_prompt,
    },
    ({ session, waitMs, ...prompt }) =>
      answer(async () => {
        const stub = await sessionStub(env, session)
        const { receipt, duplicate } = await stub.prompt(caller, prompt)
        return { ...(await settleTurn(stub, caller, receipt.sequence, waitMs ?? 30_000)), messageId: receipt.id, sequence: receipt.sequence, duplicate }
      }),
  )
  server.registerTool(
    'session_history',
    { description: "A page of a session's durable events after a cursor (`after`), oldest first; `next` is the next page's cursor.", inputSchema: { ...Session, ...PageQuery.shape }, outputSchema: OUTPUTS.session_history },
    ({ session, after, limit }) => answer(async () => (await sessionStub(env, session)).history(caller, after, limit)),
  )
  server.registerTool(
    'session_list',
    { description: 'The sessions you own, oldest first, paged by cursor.', inputSchema: PageQuery.shape, outputSchema: OUTPUTS.session_list },
    (page) => answer(() => listSessions(env, caller, page)),
  )
  server.registerTool(
    'session_interrupt',
    { description: "Stop a session's running turn (pending prompts stay admitted); an idle session is a no-op that says so.", inputSchema: { ...Session, ...InterruptSchema.shape }, outputSchema: OUTPUTS.session_interrupt },
    ({ session, ...request }) => answer(async () => (await sessionStub(env, session)).interrupt(caller, request)),
  )
  server.registerTool(
    'session_permissions',
    { description: "The permission requests of a session's tool calls waiting for the owner's answer, oldest first.", inputSchema: Session, outputSchema: OUTPUTS.session_permissions },
    ({ session }) => answer(async () => (await sessionStub(env, session)).permissions(caller)),
  )
  server.registerTool(
    'session_answer_permission',
    {
      description: "Answer a pending permission request as the session's owner: once runs the call, always also allows it from now on, reject fails it PERMISSION_DENIED with your reason.",
      inputSchema: { ...Session, ...PermissionAnswerSchema.shape },
      outputSchema: OUTPUTS.session_answer_permission,
    },
    ({ session, ...answer_ }) => answer(async () => (await sessionStub(env, session)).answerPermission(caller, answer_)),
  )
  // The SDK advertises `tools.listChanged` once a tool is registered; this server can never send it.
  server.server.registerCapabilities({ tools: { listChanged: false } })
  return server
}
