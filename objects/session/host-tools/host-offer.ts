/**
 * What a browser host may offer a session (see docs/host-tools.md): the
 * decision that turns a `host.offer` message into tools, one tool at a time.
 * A tool that cannot be used (a bad name, a duplicate, a broken schema) is
 * refused alone with a code, so one mistake never withdraws the others; an
 * offer too large as a whole is refused whole. Pure: the caller supplies how
 * an accepted tool executes (by sending the call to the offering socket).
 */
import { z } from 'zod'
import { NeuronError } from '../../core/errors.ts'
import { utf8Length } from '../../ledger/json.ts'
import { MAX_HOST_DESCRIPTION, MAX_HOST_OFFER_BYTES, MAX_HOST_TOOLS } from '../../core/limits.ts'
import { jsonSchemaTool } from '../../tools/json-schema-tool.ts'
import type { Tool, ToolContext } from '../../tools/tool.ts'

/** A tool as the host describes it (kept as sent, so a wake can rebuild it). */
export interface OfferedTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

export interface Refusal {
  name: string
  code: string
  message: string
}

/** The shape of `host.offer`; each tool's fields are checked one tool at a time by `checkOffer`. */
export const HostOfferSchema = z.strictObject({
  type: z.literal('host.offer'),
  host: z.string().min(1).max(64),
  tools: z.array(z.unknown()),
})

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** What executes an accepted tool's calls: the input already passed the tool's schema. */
export type HostExecute = (name: string, input: unknown, context: ToolContext) => Promise<string>

/**
 * Checks an offer's tools and builds the accepted ones. Throws `TOO_MANY_TOOLS` or
 * `HOST_OFFER_TOO_LARGE` (413) for an offer refused whole.
 *
 * @example
 * const { tools, refused } = checkOffer(message.tools, (name, input, context) => host.call(name, input, context))
 * for (const [name, tool] of tools) registry.register(name, tool, 'host:notes')
 */
export function checkOffer(
  sent: unknown[],
  execute: HostExecute,
): { tools: Map<string, Tool>; offered: OfferedTool[]; refused: Refusal[] } {
  if (sent.length > MAX_HOST_TOOLS) {
    throw new NeuronError('TOO_MANY_TOOLS', `an offer holds ${sent.length} tools; the limit is ${MAX_HOST_TOOLS}`, {
      status: 413,
      details: { maxTools: MAX_HOST_TOOLS },
    })
  }
  const bytes = utf8Length(JSON.stringify(sent))
  if (bytes > MAX_HOST_OFFER_BYTES) {
    throw new NeuronError('HOST_OFFER_TOO_LARGE', `an offer is ${bytes} bytes of JSON; the limit is ${MAX_HOST_OFFER_BYTES}`, {
      status: 413,
      details: { maxBytes: MAX_HOST_OFFER_BYTES },
    })
  }
  const tools = new Map<string, Tool>()
  const offered: OfferedTool[] = []
  const refused: Refusal[] = []
  sent.forEach((entry, index) => {
    const candidate = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>
    const name = typeof candidate.name === 'string' ? candidate.name : `#${index}`
    const refusal = refusalOf(candidate, name, tools)
    if (refusal) return void refused.push({ name, ...refusal })
    const tool = { name, description: candidate.description as string, inputSchema: candidate.inputSchema as Record<string, unknown> }
    try {
      // It runs in the owner's browser, with the owner's apps.
      tools.set(name, jsonSchemaTool({ ...tool, require: 'owner', execute: (input, context) => execute(name, input, context) }))
      offered.push(tool)
    } catch (error) {
      if (!(error instanceof NeuronError)) throw error
      refused.push({ name, code: error.code, message: error.message })
    }
  })
  return { tools, offered, refused }
}

/** Why one tool cannot be offered (besides its schema, which `jsonSchemaTool` checks), or null. */
function refusalOf(tool: Record<string, unknown>, name: string, accepted: Map<string, Tool>): { code: string; message: string } | null {
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
    return { code: 'INVALID_TOOL_NAME', message: `a tool name is 1–64 characters of [a-zA-Z0-9_-]; got ${JSON.stringify(tool.name ?? null).slice(0, 80)}` }
  }
  if (accepted.has(name)) return { code: 'DUPLICATE_TOOL_NAME', message: `${name} is offered twice; the first is kept` }
  if (typeof tool.description !== 'string' || tool.description.length > MAX_HOST_DESCRIPTION) {
    return { code: 'INVALID_DESCRIPTION', message: `the description of ${name} must be a string of at most ${MAX_HOST_DESCRIPTION} characters` }
  }
  const schema = tool.inputSchema
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || (schema as { type?: unknown }).type !== 'object') {
    return { code: 'INVALID_SCHEMA', message: `the input schema of ${name} must be a JSON Schema object with "type": "object"` }
  }
  return null
}
