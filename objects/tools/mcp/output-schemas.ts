/**
 * The JSON Schema validator the MCP client checks tools' structured results with (a tool's
 * `outputSchema`, sent by the server). The SDK's own choices run patterns on V8's backtracking
 * engine (and Ajv compiles code with `new Function`, which workerd refuses), so results are
 * validated like every other schema from outside the code: checked (ledger/schema-check.ts),
 * then run with patterns on the linear-time engine (ledger/validator.ts), at the tool's first
 * result. An output schema that is refused makes that tool's results fail with the reason, never
 * the listing.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { NeuronError } from '../../core/errors.ts'
import { canonicalJson } from '../../ledger/json.ts'
import { checkSchema } from '../../ledger/schema-check.ts'
import { SchemaValidator } from '../../ledger/validator.ts'

/**
 * @example
 * new Client(info, { jsonSchemaValidator: outputSchemas })
 */
export const outputSchemas: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    // Checked (and its patterns compiled) at the first result, not when the list is read: a
    // listing's cost is bounded by what the toolset compiles for the tools' inputs.
    let validator: SchemaValidator | string | undefined
    return (input) => {
      validator ??= prepare(schema)
      if (typeof validator === 'string') return { valid: false, data: undefined, errorMessage: `the tool's output schema is refused: ${validator}` }
      const result = validator.validate(input)
      if (result.valid) return { valid: true, data: input as T, errorMessage: undefined }
      return { valid: false, data: undefined, errorMessage: result.errors.slice(0, 8).map((e) => `${e.instanceLocation}: ${e.error}`).join('; ') }
    }
  },
}

/** The checked validator, or why the schema is refused. */
function prepare(schema: JsonSchemaType): SchemaValidator | string {
  try {
    checkSchema(schema as Record<string, unknown>, canonicalJson(schema as never))
    return new SchemaValidator(schema as Record<string, unknown>)
  } catch (error) {
    if (!(error instanceof NeuronError)) throw error
    return error.message
  }
}
