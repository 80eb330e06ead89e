/**
 * Patterns from outside the code run on the linear-time engine: a pattern that stalls V8's
 * backtracking engine for seconds validates in milliseconds, harmless patterns that the old
 * shape check refused (Neuron's own id pattern) are accepted, constructs with no linear-time
 * meaning (lookaround, backreferences) are refused with INVALID_SCHEMA, and the rewritten
 * escapes keep their ECMA-262 meaning. The bound asserted is generous: V8 takes over 5 s on the
 * polynomial case (Node 22, k = 12, 22 characters), RE2 a few milliseconds.
 */
import { allowAll } from '../support/permission.ts'
import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { canonicalJson } from '../../objects/ledger/json.ts'
import { checkSchema } from '../../objects/ledger/schema-check.ts'
import { MAX_PATTERN_COST, MAX_SCHEMA_PATTERN_COST } from '../../objects/core/limits.ts'
import { SchemaValidator } from '../../objects/ledger/validator.ts'
import { jsonSchemaTool } from '../../objects/tools/json-schema-tool.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { settle } from '../../objects/tools/settle.ts'
import type { ToolContext } from '../../objects/tools/tool.ts'

const POLYNOMIAL = `^${'a*'.repeat(12)}$`
const HOSTILE = `${'a'.repeat(22)}b`
const NEURON_ID = '^[A-Za-z0-9_:-]+(?:\\.[A-Za-z0-9_:-]+)*$'

const context = (): ToolContext => ({ sessionId: 's', assistantMessageId: 'step', toolCallId: 'call', signal: new AbortController().signal, authority: { owner: true, memory: null }, permission: allowAll() })
const refusal = (schema: Record<string, unknown>) => {
  try {
    checkSchema(schema, canonicalJson(schema))
  } catch (error) {
    if (error instanceof NeuronError) return { code: error.code, path: (error.details as { path: string }).path, reason: (error.details as { reason: string }).reason }
    throw error
  }
  return null
}

/** Runs one call of a tool with `inputSchema`; the outcome and how long it took. */
async function call(inputSchema: Record<string, unknown>, input: unknown) {
  const tools = new ToolRegistry()
  const shown = tools.register('t', jsonSchemaTool({ description: 'x', inputSchema, execute: () => 'ran' }))
  const started = performance.now()
  const outcome = await settle({ id: 'c', name: 't', input }, shown, tools, context())
  return { ok: outcome.ok, ms: performance.now() - started }
}

describe('patterns on the linear-time engine', () => {
  it('a polynomial pattern validates in linear time, as pattern and as patternProperties', async () => {
    const byPattern = await call({ type: 'object', properties: { q: { type: 'string', pattern: POLYNOMIAL } } }, { q: HOSTILE })
    const byName = await call({ type: 'object', patternProperties: { [POLYNOMIAL]: { type: 'string' } }, additionalProperties: false }, { [HOSTILE]: 'x' })
    console.log(`polynomial pattern, ${HOSTILE.length} characters: pattern ${byPattern.ms.toFixed(1)} ms, patternProperties ${byName.ms.toFixed(1)} ms`)
    expect(byPattern).toEqual({ ok: false, ms: expect.any(Number) })
    expect(byName).toEqual({ ok: false, ms: expect.any(Number) })
    expect(byPattern.ms).toBeLessThan(1000)
    expect(byName.ms).toBeLessThan(1000)
    expect((await call({ type: 'string', pattern: POLYNOMIAL }, 'aaaa')).ok).toBe(true)
  })

  it('accepts harmless patterns, Neuron’s own id pattern among them', async () => {
    for (const pattern of [NEURON_ID, '^(\\+|-)?\\d+$', '^(a+)+$', '(\\w+\\s?)*', '^\\d{3}-\\d{4}$', '\\u{1F600}+']) expect(refusal({ type: 'string', pattern })).toBeNull()
    expect((await call({ type: 'string', pattern: NEURON_ID }, 'session.a-1.notes')).ok).toBe(true)
    expect((await call({ type: 'string', pattern: NEURON_ID }, 'a..b')).ok).toBe(false)
  })

  it.each([
    ['(a)\\1', 'backreferences'],
    ['(?<x>a)\\k<x>', 'backreferences'],
    ['(?=a)a', 'lookahead'],
    ['^(?!admin$)', 'lookahead'],
    ['(?<=a)b', 'lookbehind'],
    ['(?i:a)', 'modifiers'],
    ['\\p{Script_Extensions=Greek}', 'Script_Extensions'],
    ['([^x]{1,500}){3}', 'expands'],
    ['a{1001}', 'linear time'],
    ['(a', 'does not compile'],
    ['a'.repeat(MAX_PATTERN_COST + 1), 'characters'],
  ].map(([pattern, reason]) => ({ pattern: pattern!, reason: reason!, shown: pattern!.slice(0, 24) })))('refuses $shown with INVALID_SCHEMA ($reason)', ({ pattern, reason }) => {
    const found = refusal({ type: 'object', properties: { a: { type: 'string', pattern } } })
    expect(found).toEqual({ code: 'INVALID_SCHEMA', path: '$.properties.a.pattern', reason: expect.stringContaining(reason) })
    expect(refusal({ type: 'object', patternProperties: { [pattern]: true } })).toEqual({ code: 'INVALID_SCHEMA', path: '$.patternProperties', reason: expect.stringContaining(reason) })
  })

  it('bounds what one schema’s patterns cost to compile together, before compiling any', () => {
    // RE2 repeats at most 1,000 times: each of these costs 1,002 and more.
    const costly = '^[^x]{1,1000}$'
    const count = Math.floor(MAX_SCHEMA_PATTERN_COST / 1010)
    const schema = (n: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string', pattern: `${costly}${'a'.repeat(i)}` }])) })
    expect(refusal(schema(count))).toBeNull()
    expect(refusal(schema(count + 1))).toEqual({ code: 'INVALID_SCHEMA', path: '$', reason: expect.stringContaining('MAX_SCHEMA_PATTERN_COST') })
  })

  it('keeps the ECMA-262 meaning of the escapes the two dialects spell differently', async () => {
    const matches = async (pattern: string, value: string) => (await call({ type: 'string', pattern }, value)).ok
    expect(await matches('^\\s$', '\u00a0')).toBe(true)
    expect(await matches('^\\s$', '\u000b')).toBe(true)
    expect(await matches('^\\S$', '\u2028')).toBe(false)
    expect(await matches('^[\\S]$', 'x')).toBe(true)
    expect(await matches('^.$', '\r')).toBe(false)
    expect(await matches('^.$', '😀')).toBe(true)
    expect(await matches('^\\u0041\\x42\\u{43}$', 'ABC')).toBe(true)
    expect(await matches('^\\uD83D\\uDE00$', '😀')).toBe(true)
    expect(await matches('^[^]$', '\n')).toBe(true)
    expect(await matches('[]', 'a')).toBe(false)
    expect(await matches('^\\p{Letter}+$', 'héllo')).toBe(true)
    expect(await matches('^\\p{Script=Greek}$', 'α')).toBe(true)
    expect(await matches('^[[]$', '[')).toBe(true)
    expect(await matches('^a$', 'a\n')).toBe(false)
    expect(await matches('\\bfoo\\b', 'a foo b')).toBe(true)
  })

  it('format: regex accepts what the engine accepts; format: url is linear', async () => {
    expect((await call({ type: 'string', format: 'regex' }, '^a*a*$')).ok).toBe(true)
    expect((await call({ type: 'string', format: 'regex' }, '(?=a)')).ok).toBe(false)
    const url = await call({ type: 'string', format: 'url' }, `http://${'a-'.repeat(40)}|`)
    console.log(`format: url, 87 hostile characters: ${url.ms.toFixed(1)} ms`)
    expect(url.ok).toBe(false)
    expect(url.ms).toBeLessThan(1000)
    expect((await call({ type: 'string', format: 'url' }, 'https://example.com/a?b')).ok).toBe(true)
  })

  it('a stored schema with a refused pattern fails INVALID_SCHEMA at use, and V8’s RegExp is back after it', async () => {
    await call({ type: 'string', pattern: POLYNOMIAL }, 'aaa')
    expect(RegExp).toBe(/x/.constructor)
    // Constructed without the check, as a schema stored before the check existed is.
    const stored = new SchemaValidator({ type: 'string', pattern: '(?=a)a' })
    expect(() => stored.validate('a')).toThrowError(expect.objectContaining({ code: 'INVALID_SCHEMA', details: expect.objectContaining({ reason: expect.stringContaining('lookahead') }) }))
    expect(RegExp).toBe(/x/.constructor)
    expect(new RegExp('(?=a)a').test('a')).toBe(true)
  })
})
