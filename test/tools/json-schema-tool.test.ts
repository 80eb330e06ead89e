import { allowAll } from '../support/permission.ts'
import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { jsonSchemaTool } from '../../objects/tools/json-schema-tool.ts'
import { ToolRegistry, specsOf } from '../../objects/tools/registry.ts'
import { settle } from '../../objects/tools/settle.ts'
import type { ToolContext } from '../../objects/tools/tool.ts'

const context = (): ToolContext => ({ sessionId: 's', assistantMessageId: 'step', toolCallId: 'call', signal: new AbortController().signal, authority: { owner: true, memory: null }, permission: allowAll() })

const searchSchema = {
  type: 'object',
  properties: { q: { type: 'string', minLength: 1 }, limit: { type: 'integer', maximum: 50 } },
  required: ['q'],
  additionalProperties: false,
}

describe('a tool described by a JSON Schema', () => {
  it('shows the model its schema verbatim and runs a valid call', async () => {
    const seen: unknown[] = []
    const tools = new ToolRegistry()
    const shown = tools.register('notes_search', jsonSchemaTool({ description: 'Search notes', inputSchema: searchSchema, execute: (input) => (seen.push(input), 'found 2') }), 'host')
    expect(specsOf(tools.snapshot())).toEqual([{ name: 'notes_search', description: 'Search notes', inputSchema: searchSchema }])
    expect(await settle({ id: 'c', name: 'notes_search', input: { q: 'milk', limit: 3 } }, shown, tools, context())).toEqual({ ok: true, content: 'found 2', truncated: false, full: null })
    expect(seen).toEqual([{ q: 'milk', limit: 3 }])
  })

  it('refuses input that does not match, naming where, without executing', async () => {
    let ran = 0
    const tools = new ToolRegistry()
    const shown = tools.register('notes_search', jsonSchemaTool({ description: 'Search', inputSchema: searchSchema, execute: () => (ran++, '') }))
    const outcome = await settle({ id: 'c', name: 'notes_search', input: { q: '', extra: 1 } }, shown, tools, context())
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.error.code).toBe('TOOL_INPUT_INVALID')
    expect(outcome.error.message).toContain('#/q')
    expect(ran).toBe(0)
  })

  it('a coded failure thrown by execute reaches the model with its code', async () => {
    const tools = new ToolRegistry()
    const shown = tools.register('gone', jsonSchemaTool({ description: 'x', inputSchema: { type: 'object' }, execute: () => { throw new NeuronError('HOST_GONE', 'the browser left') } }))
    expect(await settle({ id: 'c', name: 'gone', input: {} }, shown, tools, context())).toEqual({ ok: false, error: { code: 'HOST_GONE', message: 'the browser left' } })
  })

  it('a schema that cannot be used refuses the tool with INVALID_SCHEMA', () => {
    const make = (inputSchema: Record<string, unknown>) => () => jsonSchemaTool({ description: 'x', inputSchema, execute: () => '' })
    expect(make({ type: 'object', properties: { a: { type: 'string', pattern: '^(a)\\1$' } } })).toThrowError(expect.objectContaining({ code: 'INVALID_SCHEMA' }))
    expect(make({ $ref: '#/$defs/missing' })).toThrowError(expect.objectContaining({ code: 'INVALID_SCHEMA' }))
    expect(make({ type: 'object', properties: { a: 7 } })).toThrowError(expect.objectContaining({ code: 'INVALID_SCHEMA' }))
  })
})
