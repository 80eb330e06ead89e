import { allowAll } from '../support/permission.ts'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { evaluate } from '../../objects/tools/builtins/calculator.ts'
import { ToolRegistry, specsOf } from '../../objects/tools/registry.ts'
import { MODEL_OUTPUT_CAP, settle } from '../../objects/tools/settle.ts'
import { Tool, type ToolContext } from '../../objects/tools/tool.ts'
import { NeuronError } from '../../objects/core/errors.ts'

const context = (signal = new AbortController().signal): ToolContext => ({ sessionId: 's', assistantMessageId: 'step', toolCallId: 'call', signal, authority: { owner: true, memory: null }, permission: allowAll() })

const echo = (tag: string) =>
  Tool.make({
    description: `echo (${tag})`,
    input: z.object({ text: z.string() }),
    output: z.object({ text: z.string(), tag: z.string() }),
    execute: ({ text }) => ({ text, tag }),
  })

describe('the registry overlay', () => {
  it('latest active registration wins; closing it reveals the prior one', async () => {
    const tools = new ToolRegistry()
    tools.register('echo', echo('location'))
    const app = tools.register('echo', echo('app'), 'app:notes')
    expect(tools.resolve('echo')?.scope).toBe('app:notes')
    expect(specsOf(tools.snapshot()).map((s) => s.description)).toEqual(['echo (app)'])
    app.close()
    expect(tools.resolve('echo')?.scope).toBe('location')
    expect(specsOf(tools.snapshot())[0]!.inputSchema).toMatchObject({ type: 'object', required: ['text'] })
  })

  it('a call against a registration that closed since the model saw it is rejected without executing', async () => {
    const tools = new ToolRegistry()
    let ran = 0
    const counted = Tool.make({ description: 'count', input: z.object({}), output: z.object({}), execute: () => (ran++, {}) })
    const shown = tools.register('count', counted)
    const snapshot = tools.snapshot()
    shown.close()
    tools.register('count', counted)
    const outcome = await settle({ id: 'c', name: 'count', input: {} }, snapshot.get('count'), tools, context())
    expect(outcome).toEqual({ ok: false, error: { code: 'TOOL_STALE', message: 'the registration of count the model saw has closed' } })
    expect(ran).toBe(0)
  })
})

describe('settle: resolve → decode → execute → encode → model content → bound', () => {
  const tools = new ToolRegistry()
  const shown = tools.register('echo', echo('x'))

  it('settles a valid call into model content', async () => {
    expect(await settle({ id: 'c', name: 'echo', input: { text: 'hi' } }, shown, tools, context())).toEqual({
      ok: true,
      content: '{"tag":"x","text":"hi"}',
      truncated: false,
      full: null,
    })
  })

  it('turns each failure into a coded outcome the model can read', async () => {
    const failing = tools.register('boom', Tool.make({ description: 'fails', input: z.object({}), output: z.object({}), execute: () => { throw new NeuronError('DISK_FULL', 'no space') } }))
    const lying = tools.register('liar', Tool.make({ description: 'bad output', input: z.object({}), output: z.object({ n: z.number() }), execute: () => ({ n: 'one' }) as never }))
    const crash = tools.register('crash', Tool.make({ description: 'throws', input: z.object({}), output: z.object({}), execute: () => { throw new TypeError('oops') } }))
    const codes = await Promise.all([
      settle({ id: '1', name: 'nope', input: {} }, undefined, tools, context()),
      settle({ id: '2', name: 'echo', input: { text: 5 } }, shown, tools, context()),
      settle({ id: '3', name: 'boom', input: {} }, failing, tools, context()),
      settle({ id: '4', name: 'liar', input: {} }, lying, tools, context()),
      settle({ id: '5', name: 'crash', input: {} }, crash, tools, context()),
    ])
    expect(codes.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual(['TOOL_NOT_FOUND', 'TOOL_INPUT_INVALID', 'DISK_FULL', 'TOOL_OUTPUT_INVALID', 'TOOL_FAILED'])
  })

  it('bounds oversized output and keeps the full text for an artifact', async () => {
    const big = tools.register('big', Tool.make({ description: 'big', input: z.object({}), output: z.string(), execute: () => 'é'.repeat(20_000), toModelOutput: (s) => s }))
    const outcome = await settle({ id: 'b', name: 'big', input: {} }, big, tools, context())
    if (!outcome.ok) throw new Error('expected success')
    expect(outcome.truncated).toBe(true)
    expect(new TextEncoder().encode(outcome.content).byteLength).toBeLessThanOrEqual(MODEL_OUTPUT_CAP + 100)
    expect(outcome.full).toBe('é'.repeat(20_000))
  })

  it('an abort is not an outcome: it propagates', async () => {
    const controller = new AbortController()
    const slow = tools.register('slow', Tool.make({
      description: 'slow',
      input: z.object({}),
      output: z.object({}),
      execute: (_i, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    }))
    const pending = settle({ id: 's', name: 'slow', input: {} }, slow, tools, context(controller.signal))
    controller.abort(new Error('interrupted'))
    await expect(pending).rejects.toThrow('interrupted')
  })
})

describe('calculator', () => {
  it.each([
    ['2 * (3 + 4) ^ 2', 98],
    ['-2^2', -4],
    ['2^3^2', 512],
    ['sqrt(16) + abs(-3) + max(1, 7, 3)', 14],
    ['10 % 4 + 1.5e1', 17],
    ['round(pi * 100) / 100', 3.14],
  ])('%s = %d', (expression, value) => {
    expect(evaluate(expression)).toBe(value)
  })

  it.each([['2 +'], ['foo(1)'], ['(1'], ['1 2'], ['1/0'], ['constructor'], ['toString(1)']])('%s is refused with a code', (expression) => {
    expect(() => evaluate(expression)).toThrow(NeuronError)
  })
})
