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

  it('refuses wide combinators and big subschemas applied to every element', () => {
    const alternatives = (n: number) => Array.from({ length: n }, (_, i) => ({ const: i }))
    expect(checkSchema({ anyOf: alternatives(64) })).toBeNull()
    expect(checkSchema({ anyOf: alternatives(65) })).toContain('at most 64 alternatives')
    expect(checkSchema({ type: 'array', items: { anyOf: alternatives(2_000) } })).toContain('alternatives')
    // within the width limit, but 4 × 64 + 2 nodes for every element
    expect(checkSchema({ type: 'array', items: { allOf: Array.from({ length: 4 }, () => ({ anyOf: alternatives(64) })) } })).toContain('applied to every element')
    expect(checkSchema({ type: 'object', additionalProperties: { oneOf: [{ anyOf: alternatives(64) }, { anyOf: alternatives(64) }, { anyOf: alternatives(64) }, { anyOf: alternatives(64) }] } })).toContain('applied to every element')
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
    const schema = compileSchema({ type: 'object', required: ['query'], properties: { query: { type: 'string' } }, additionalProperties: false })
    const validate = (value: unknown) => schema(value, { deadline: Infinity }) // verdicts, not the clock
    expect(validate({ query: 'x' })).toBeNull()
    expect(validate({})).toMatchObject({ code: 'SCHEMA_VIOLATION', reason: expect.stringMatching(/query/) })
    expect(validate({ query: 'x', caller: 'app:notes:background' })?.reason).toMatch(/caller/)
    expect(validate({ query: 1 })?.reason).toMatch(/string/)
  })

  it('does not mutate the schema it was given', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } }
    const copy = structuredClone(schema)
    compileSchema(schema)({ a: 'x' })
    expect(schema).toEqual(copy)
  })

  it('every validation has a work budget: it stops with VALIDATION_BUDGET, never runs on', () => {
    // Passes every static rule, yet costs 64 × 3 steps per element: the budget is what stops it.
    const validate = compileSchema({ type: 'array', items: { anyOf: Array.from({ length: 64 }, (_, i) => ({ type: 'object', required: [`k${i}`] })) } })
    const payload = Array.from({ length: 10_000 }, () => ({ k63: 1 })) // valid: only the last alternative matches
    const late = () => ({ deadline: performance.now() + 60_000 }) // only the step count decides (a loaded machine cannot change the verdict)
    const started = performance.now()
    expect(validate(payload, late())).toMatchObject({ code: 'VALIDATION_BUDGET' })
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(validate(payload.slice(0, 10), late())).toBeNull()
    expect(validate([{ nope: 1 }], late())).toMatchObject({ code: 'SCHEMA_VIOLATION' })
    expect(validate(payload, { steps: 10, deadline: late().deadline })).toMatchObject({ code: 'VALIDATION_BUDGET' })
    expect(validate(payload.slice(0, 100), { deadline: performance.now() - 1 })).toMatchObject({ code: 'VALIDATION_BUDGET', reason: expect.stringContaining('time') }) // past its deadline
    expect(validate([], { deadline: performance.now() - 1 })).toBeNull() // a few steps always get their verdict
    expect(validate([{ k0: 1 }], late())).toBeNull() // the budget is per call
  })

  it('boolean subschemas count as steps too', () => {
    const validate = compileSchema({ type: 'array', items: { anyOf: [false, false, false, true] } })
    expect(validate([1, 2, 3], { deadline: performance.now() + 60_000 })).toBeNull()
    expect(validate(Array(20_000).fill(1), { deadline: performance.now() + 60_000 })).toMatchObject({ code: 'VALIDATION_BUDGET' })
  })
})
