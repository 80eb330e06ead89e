import { describe, expect, it } from 'vitest'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { FIXTURES } from './fixtures.ts'
import { parseOk, runDialect, utf8 } from './support.ts'

const rec = FIXTURES['openai-compatible']
const usage = (inputTokens: number, outputTokens: number, cachedInputTokens = 0, reasoningTokens = 0) => ({
  type: 'usage',
  inputTokens,
  outputTokens,
  cachedInputTokens,
  reasoningTokens,
})
const chunk = (body: string) => `data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m",${body}}\n\n`

describe('openai-compatible (chat completions) dialect: recorded streams', () => {
  it('plain text; the usage chunk with `choices: []` comes before [DONE]', () => {
    expect(parseOk(openaiCompatible, rec['text.sse'])).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: '!' },
      { type: 'text-delta', text: ' Café' },
      { type: 'text-delta', text: ' au lait, 🌍' },
      { type: 'text-delta', text: ' and 日本語.' },
      usage(9, 12),
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('parallel tool calls keyed by index; usage chunk with `choices: null`', () => {
    const a = 'call_DdmO9pD3xa9XTPNJ32zg2hcA'
    const b = 'call_ABCDEFGHIJKLMNOPQRSTUVWX'
    const c = 'call_noargs0123456789abcdef'
    expect(parseOk(openaiCompatible, rec['tools-parallel.sse'])).toEqual([
      { type: 'tool-input-start', id: a, name: 'get_weather' },
      { type: 'tool-input-delta', id: a, delta: '{"lo' },
      { type: 'tool-input-delta', id: a, delta: 'cation": "Paris, France"}' },
      { type: 'tool-input-start', id: b, name: 'get_weather' },
      { type: 'tool-input-delta', id: b, delta: '{"location": "Bogotá"}' },
      { type: 'tool-input-start', id: c, name: 'get_time' },
      { type: 'tool-input-end', id: a },
      { type: 'tool-call', id: a, name: 'get_weather', input: { location: 'Paris, France' } },
      { type: 'tool-input-end', id: b },
      { type: 'tool-call', id: b, name: 'get_weather', input: { location: 'Bogotá' } },
      { type: 'tool-input-end', id: c },
      { type: 'tool-call', id: c, name: 'get_time', input: {} },
      usage(82, 51, 64),
      { type: 'finish', reason: 'tool-calls' },
    ])
  })

  it('reasoning_content streams as reasoning; SSE comments (keep-alives) are ignored', () => {
    expect(parseOk(openaiCompatible, rec['reasoning.sse'])).toEqual([
      { type: 'reasoning-delta', text: 'The user' },
      { type: 'reasoning-delta', text: ' asks 9.11 vs 9.8.' },
      { type: 'text-delta', text: '9.8' },
      { type: 'text-delta', text: ' is larger.' },
      usage(18, 120, 0, 97),
      { type: 'finish', reason: 'stop' },
    ])
  })

  it.each([
    ['length.sse', 'length'],
    ['content-filter.sse', 'content-filter'],
  ] as const)('%s finishes with %s', (file, reason) => {
    expect(parseOk(openaiCompatible, rec[file]).at(-1)).toEqual({ type: 'finish', reason })
  })

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool-calls'],
    ['function_call', 'tool-calls'],
    ['content_filter', 'content-filter'],
    ['eos', 'other'],
  ])('finish_reason %s finishes with %s', (wire, reason) => {
    const text = rec['text.sse'].replace('"finish_reason":"stop"', `"finish_reason":"${wire}"`)
    expect(parseOk(openaiCompatible, text).at(-1)).toEqual({ type: 'finish', reason })
  })

  it('a server that says "stop" after tool calls still ends in tool-calls', () => {
    const text = rec['tools-parallel.sse'].replace('"finish_reason":"tool_calls"', '"finish_reason":"stop"')
    expect(parseOk(openaiCompatible, text).at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('reads DeepSeek cache hits and `reasoning` (OpenRouter / vLLM) deltas', () => {
    const text =
      chunk('"choices":[{"index":0,"delta":{"reasoning":"hmm"},"finish_reason":null}]') +
      chunk('"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":5,"prompt_cache_hit_tokens":80}') +
      'data: [DONE]\n\n'
    expect(parseOk(openaiCompatible, text)).toEqual([
      { type: 'reasoning-delta', text: 'hmm' },
      usage(100, 5, 80),
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('tool calls without `index` (one call per chunk) get their own slots', () => {
    const call = (id: string, args: string) =>
      chunk(`"choices":[{"index":0,"delta":{"tool_calls":[{"id":"${id}","type":"function","function":{"name":"f","arguments":${JSON.stringify(args)}}}]},"finish_reason":null}]`)
    const text = call('a', '{"x":1}') + call('b', '{"x":2}') + chunk('"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]') + 'data: [DONE]\n\n'
    const calls = parseOk(openaiCompatible, text).filter((e) => e.type === 'tool-call')
    expect(calls).toEqual([
      { type: 'tool-call', id: 'a', name: 'f', input: { x: 1 } },
      { type: 'tool-call', id: 'b', name: 'f', input: { x: 2 } },
    ])
  })

  it('arguments that are not JSON reach the caller as a string, for the tool to reject', () => {
    const text = rec['tools-parallel.sse'].replace('cation\\": \\"Paris, France\\"}', 'cation\\": Paris')
    const first = parseOk(openaiCompatible, text).find((e) => e.type === 'tool-call')
    expect(first).toEqual({ type: 'tool-call', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: '{"location": Paris' })
  })

  it('an error chunk inside a 200 stream throws, keeping what came before', () => {
    const { events, error } = runDialect(openaiCompatible, [utf8(rec['error.sse'])])
    expect(events).toEqual([{ type: 'text-delta', text: 'Partial' }])
    expect(error).toMatchObject({ name: 'ProviderError', code: 'PROVIDER_SERVER', vendorType: 'server_error' })
    expect((error as Error).message).toMatch(/^The server had an error/)
  })

  it('a stream without `data: [DONE]` is PROVIDER_STREAM_TRUNCATED', () => {
    const { events, error } = runDialect(openaiCompatible, [utf8(rec['truncated.sse'])])
    expect(events).toHaveLength(5)
    expect(error).toMatchObject({ code: 'PROVIDER_STREAM_TRUNCATED' })
  })

  it('finish_reason and usage, then a close without [DONE], is a complete turn', () => {
    const text = rec['text.sse'].slice(0, rec['text.sse'].indexOf('data: [DONE]'))
    expect(runDialect(openaiCompatible, [utf8(text)])).toMatchObject({ error: undefined, events: parseOk(openaiCompatible, rec['text.sse']) })
  })

  it('finish_reason then a close with no usage and no [DONE] is complete, without a usage event', () => {
    const text = rec['text.sse'].slice(0, rec['text.sse'].indexOf('data: {"id":"chatcmpl-AyPq1dtr6kBbpMcQz2rGL4ZxOgHcL","object":"chat.completion.chunk","created":1739008100,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_06737a9306","choices":[],"usage"'))
    const { events, error } = runDialect(openaiCompatible, [utf8(text)])
    expect(error).toBeUndefined()
    expect(events.map((e) => e.type)).not.toContain('usage')
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('tool calls are complete at finish_reason even when [DONE] never comes', () => {
    const text = rec['tools-parallel.sse'].slice(0, rec['tools-parallel.sse'].indexOf('data: [DONE]'))
    expect(runDialect(openaiCompatible, [utf8(text)])).toMatchObject({ error: undefined, events: parseOk(openaiCompatible, rec['tools-parallel.sse']) })
  })

  it('a close after content but before any finish_reason is still truncated', () => {
    const text = rec['text.sse'].slice(0, rec['text.sse'].indexOf('"finish_reason":"stop"'))
    const cut = text.slice(0, text.lastIndexOf('data: '))
    const { events, error } = runDialect(openaiCompatible, [utf8(cut)])
    expect(events.length).toBeGreaterThan(0)
    expect(error).toMatchObject({ code: 'PROVIDER_STREAM_TRUNCATED' })
  })
})
