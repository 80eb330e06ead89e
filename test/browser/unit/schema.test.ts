import { describe, expect, it } from 'vitest'
import { checkSchema, compileSchema } from '../../../shell-web/protocol/schema.ts'

describe('checkSchema', () => {
  it('accepts ordinary 2020-12 tool schemas with local refs', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' }, when: { type: 'string', format: 'date-time' }, tag: { $ref: '#/$defs/tag' } },
      $defs: { tag: { enum: ['a', 'b'] } },
      additionalProperties: false,
    }
    expect(checkSchema(schema)).toBeNull()
    expect(checkSchema(true)).toBeNull()
  })

  it.each([
    ['a remote $ref', { $ref: 'https://evil.example/schema.json' }, 'only local'],
    ['a relative $ref', { properties: { a: { $ref: 'other.json#/x' } } }, 'only local'],
    ['a recursive $ref', { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' }, 'recursive'],
    ['a dangling $ref', { $ref: '#/$defs/missing' }, 'does not resolve'],
    ['$id', { $id: 'https://evil.example/x' }, '$id'],
    ['$dynamicRef', { $dynamicRef: '#x' }, '$dynamicRef'],
    ['a regular expression', { properties: { a: { type: 'string', pattern: '^(a+)+$' } } }, 'ReDoS'],
    ['patternProperties', { patternProperties: { '^x': {} } }, 'ReDoS'],
    ['uniqueItems', { type: 'array', uniqueItems: true }, 'quadratic'],
    ['a non-linear format', { type: 'string', format: 'uri' }, 'format'],
    ['another draft', { $schema: 'http://json-schema.org/draft-07/schema#' }, '$schema'],
    ['a non-schema', [1, 2], 'object or a boolean'],
  ])('refuses %s', (_name, schema, reason) => {
    expect(checkSchema(schema)).toContain(reason)
  })

  it('a property named "pattern" is a property, not the keyword', () => {
    expect(checkSchema({ type: 'object', properties: { pattern: { type: 'string' } } })).toBeNull()
  })

  it('bounds schema size, depth and $ref-expanded work', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 40; i++) deep = { type: 'array', items: deep }
    expect(checkSchema(deep)).toContain('deeper')
    expect(checkSchema({ enum: ['x'.repeat(70 * 1024)] })).toContain('larger')
    // Each level references the next twice: small text, exponential expansion.
    const $defs: Record<string, unknown> = { d0: { type: 'string' } }
    for (let i = 1; i <= 20; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] }
    expect(checkSchema({ $defs, $ref: '#/$defs/d20' })).toContain('schema nodes')
  })
})

describe('compileSchema', () => {
  it('validates with draft 2020-12 semantics and explains the first failure', () => {
    const validate = compileSchema({ type: 'object', required: ['query'], properties: { query: { type: 'string' } }, additionalProperties: false })
    expect(validate({ query: 'x' })).toBeNull()
    expect(validate({})).toMatch(/query/)
    expect(validate({ query: 'x', caller: 'app:notes:background' })).toMatch(/caller/)
    expect(validate({ query: 1 })).toMatch(/string/)
  })

  it('does not mutate the schema it was given', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } }
    const copy = structuredClone(schema)
    compileSchema(schema)({ a: 'x' })
    expect(schema).toEqual(copy)
  })
})
