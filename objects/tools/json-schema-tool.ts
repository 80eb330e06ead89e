/**
 * A tool whose input is described by a JSON Schema instead of a zod schema:
 * the shape of every tool that comes from outside this deployment (an MCP
 * server's tools, a browser app's tools offered through the shell). The
 * schema is checked like a registered ledger schema before the tool exists
 * (a broken or unsafe schema refuses the tool with `INVALID_SCHEMA`, never
 * the session), the model is shown it verbatim, and every call's input is
 * validated against it (draft 2020-12, patterns on the linear-time engine:
 * ledger/validator.ts) before `execute` runs.
 */
import { z } from 'zod'
import { canonicalJson } from '../ledger/json.ts'
import { checkSchema } from '../ledger/schema-check.ts'
import { SchemaValidator } from '../ledger/validator.ts'
import { Tool, type ToolContext } from './tool.ts'

export interface JsonSchemaToolDefinition {
  description: string
  /** A JSON Schema (2020-12) object describing the call's input. */
  inputSchema: Record<string, unknown>
  /** `'owner'` for a tool that acts with the session owner's credentials or devices (see `ToolDefinition.require`). */
  require?: 'owner'
  /** Returns the text the model reads; throw a `NeuronError` for a coded failure. */
  execute(input: unknown, context: ToolContext): Promise<string> | string
}

const output = z.string()

/**
 * Throws `INVALID_SCHEMA` (400) when `inputSchema` cannot be used.
 *
 * @example
 * const search = jsonSchemaTool({
 *   description: 'Search the notes',
 *   inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
 *   execute: async (input) => JSON.stringify(await notes.search(input)),
 * })
 */
export function jsonSchemaTool(definition: JsonSchemaToolDefinition): Tool<z.ZodType<unknown>, typeof output> {
  const schema = definition.inputSchema
  checkSchema(schema, canonicalJson(schema))
  const validator = new SchemaValidator(schema)
  const input = z.unknown().superRefine((value, ctx) => {
    const result = validator.validate(value)
    if (result.valid) return
    for (const error of result.errors.slice(0, 8)) {
      ctx.addIssue({ code: 'custom', message: `${error.instanceLocation}: ${error.error}` })
    }
  })
  return Tool.make({
    description: definition.description,
    input,
    output,
    inputSchema: schema,
    ...(definition.require ? { require: definition.require } : {}),
    execute: (value, context) => definition.execute(value, context),
    toModelOutput: (text) => text,
  })
}
