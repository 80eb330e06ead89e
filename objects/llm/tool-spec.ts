/**
 * A tool's wire description from its zod input schema: JSON Schema draft
 * 2020-12, which Anthropic `input_schema`, OpenAI `parameters` and compatible
 * servers all accept. The `$schema` key is dropped: it is noise on the wire.
 */
import { z } from 'zod'
import type { ToolSpec } from './types.ts'

/**
 * @example
 * toolSpec('calculator', 'Evaluates arithmetic', z.object({ expression: z.string() }))
 * // { name: 'calculator', description: 'Evaluates arithmetic',
 * //   inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] } }
 */
export function toolSpec(name: string, description: string, input: z.ZodType): ToolSpec {
  const schema = z.toJSONSchema(input, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>
  const { $schema: _, ...inputSchema } = schema
  return { name, description, inputSchema }
}
