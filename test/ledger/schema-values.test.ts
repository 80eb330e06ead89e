/**
 * A schema's core keywords must have the shapes the 2020-12 meta-schema gives
 * them: the validator ignores a misspelt `type`, so without this check such a
 * schema would be accepted here and refused later by whoever reads it (a model
 * vendor refuses a tool's malformed schema, failing every turn that offers it).
 */
import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { canonicalJson } from '../../objects/ledger/json.ts'
import { checkSchema } from '../../objects/ledger/schema-check.ts'

const check = (schema: Record<string, unknown>) => checkSchema(schema, canonicalJson(schema))
const refusal = (schema: Record<string, unknown>) => {
  try {
    check(schema)
  } catch (error) {
    if (error instanceof NeuronError) return { code: error.code, path: error.details?.path }
    throw error
  }
  return null
}

describe('schema keyword values', () => {
  it.each([
    [{ type: 'nonsense' }, '$.type'],
    [{ type: [] }, '$.type'],
    [{ type: ['string', 'string'] }, '$.type'],
    [{ type: 'object', properties: { a: { type: 'int' } } }, '$.properties.a.type'],
    [{ type: 'object', required: 'a' }, '$.required'],
    [{ type: 'object', required: ['a', 'a'] }, '$.required'],
    [{ enum: 'a' }, '$.enum'],
    [{ type: 'string', maxLength: -1 }, '$.maxLength'],
    [{ type: 'array', minItems: 1.5 }, '$.minItems'],
    [{ type: 'number', minimum: '0' }, '$.minimum'],
    [{ type: 'number', multipleOf: 0 }, '$.multipleOf'],
    [{ anyOf: [] }, '$.anyOf'],
    [{ type: 'object', properties: [] }, '$.properties'],
  ])('refuses %j at %s', (schema, path) => {
    expect(refusal(schema)).toEqual({ code: 'INVALID_SCHEMA', path })
  })

  it.each([
    { type: 'object', properties: { type: { type: 'string' }, required: { type: 'boolean' } }, required: ['type'] },
    { type: ['string', 'null'], maxLength: 10, enum: ['a', null] },
    { anyOf: [{ type: 'integer', minimum: 0, multipleOf: 2 }, { const: 'x' }], $defs: { a: true } },
    { type: 'array', items: [{ type: 'string' }], minItems: 0 },
  ])('accepts %j', (schema) => {
    expect(refusal(schema)).toBeNull()
  })
})
