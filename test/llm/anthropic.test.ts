import { describe, expect, it } from 'vitest'
import type { ModelRow } from '../../objects/llm/catalog.ts'
import { anthropic } from '../../objects/llm/dialects/anthropic.ts'
import { ProviderError } from '../../objects/llm/errors.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { calculator } from '../../objects/tools/builtins/calculator.ts'
import { ToolRegistry } from '../../objects/tools/registry.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'
import { scriptedSession } from '../support/runner-host.ts'
import { FIXTURES } from './fixtures.ts'
import { joinedDeltas, parseOk, runDialect, utf8 } from './support.ts'

const SIGNATURE = 'ErUBCkYIBRgCIkBk3ZbJ8XBw5n4QK1x7kQhvTq2mYw2HcXcS4r8G8xkq2qU2Yw4dOvKp1nzF1fXg0HhV8Kq5n3z1wD0Qm5Q8EgwB8X7xGQY6c1qX9pUaDAh3y3Vq1mV9Y7b1JiIwtH3sXwH8V2vG4E7Q=='
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabfOc1gHnZS0BI51Whhm5Tn6J7zl2yq3X/5CWOnP9qZb'

const rec = FIXTURES.anthropic

describe('anthropic dialect: recorded streams', () => {
  it('plain text, ping ignored, usage from message_start + message_delta', () => {
    expect(parseOk(anthropic, rec['text.sse'])).toEqual([
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: '! Café ' },
      { type: 'text-delta', text: 'au lait, 🌍 ' },
      { type: 'text-delta', text: 'and 日本語.' },
      { type: 'usage', inputTokens: 25, outputTokens: 15, cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0 },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('parallel tool calls, including empty partial_json and a call with no input', () => {
    // A call's argument deltas may arrive joined (see WireReader): compare them joined.
    expect(joinedDeltas(parseOk(anthropic, rec['tools-parallel.sse']))).toEqual(joinedDeltas([
      { type: 'text-delta', text: "I'll check both cities." },
      { type: 'tool-input-start', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather' },
      { type: 'tool-input-delta', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', delta: '{"location":' },
      { type: 'tool-input-delta', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', delta: ' "San Francisco, CA"}' },
      { type: 'tool-input-end', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6' },
      { type: 'tool-call', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: { location: 'San Francisco, CA' } },
      { type: 'tool-input-start', id: 'toolu_01VzKp4uZhcjHMMh6b4BfFMr', name: 'get_weather' },
      { type: 'tool-input-delta', id: 'toolu_01VzKp4uZhcjHMMh6b4BfFMr', delta: '{"locat' },
      { type: 'tool-input-delta', id: 'toolu_01VzKp4uZhcjHMMh6b4BfFMr', delta: 'ion": "Paris, France", "unit": "celsius"}' },
      { type: 'tool-input-end', id: 'toolu_01VzKp4uZhcjHMMh6b4BfFMr' },
      {
        type: 'tool-call',
        id: 'toolu_01VzKp4uZhcjHMMh6b4BfFMr',
        name: 'get_weather',
        input: { location: 'Paris, France', unit: 'celsius' },
      },
      { type: 'tool-input-start', id: 'toolu_01NoArgsR3dK9xY2Zq8wL5vT', name: 'get_time' },
      { type: 'tool-input-end', id: 'toolu_01NoArgsR3dK9xY2Zq8wL5vT' },
      { type: 'tool-call', id: 'toolu_01NoArgsR3dK9xY2Zq8wL5vT', name: 'get_time', input: {} },
      { type: 'usage', inputTokens: 472, outputTokens: 89, cachedInputTokens: 0, reasoningTokens: 0, cacheWriteTokens: 0 },
      { type: 'finish', reason: 'tool-calls' },
    ]))
  })

  it('thinking with its signature, then text; cache reads and writes count as input', () => {
    expect(parseOk(anthropic, rec['thinking.sse'])).toEqual([
      { type: 'reasoning-delta', text: 'Let me solve this step by step:\n\n1. First break down 27 * 453' },
      { type: 'reasoning-delta', text: '\n2. 453 = 400 + 50 + 3' },
      {
        type: 'reasoning-signature',
        signature:
          'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds4ZYdxpNP2Ou/8tU4sgsuB+FD4Ks4rOT1UW5EMO5M+o1NaGm33f/O1Trs0KEe94eDxUxXYvEfrDRRD6lhuFoQ==',
      },
      { type: 'text-delta', text: '27 * 453 = 12,231' },
      { type: 'usage', inputTokens: 2372, outputTokens: 264, cachedInputTokens: 2048, reasoningTokens: 0, cacheWriteTokens: 312 },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('thinking tokens: message_delta.usage.output_tokens_details.thinking_tokens is the reasoning count, as the official SDK reads it', async () => {
    // The recorded thinking turn, its final usage as the API now sends it (with the details object).
    const sse = rec['thinking.sse'].replace('"output_tokens":264}', '"output_tokens":264,"output_tokens_details":{"thinking_tokens":187}}')
    expect(sse).toContain('thinking_tokens')
    const usage = parseOk(anthropic, sse).find((e) => e.type === 'usage')
    expect(usage).toEqual({ type: 'usage', inputTokens: 2372, outputTokens: 264, cachedInputTokens: 2048, reasoningTokens: 187, cacheWriteTokens: 312 })
    const { default: Anthropic } = await import('@anthropic-ai/sdk')
    const sdk = new Anthropic({ apiKey: 'test', fetch: async () => new Response(sse, { headers: { 'content-type': 'text/event-stream' } }) })
    const message = await sdk.messages.stream({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user', content: 'x' }] }).finalMessage()
    expect(message.usage.output_tokens_details?.thinking_tokens).toBe((usage as { reasoningTokens: number }).reasoningTokens)
    expect(message.usage.output_tokens).toBe((usage as { outputTokens: number }).outputTokens)
  }, 30_000)

  it('max_tokens finishes with length', () => {
    expect(parseOk(anthropic, rec['max-tokens.sse']).at(-1)).toEqual({ type: 'finish', reason: 'length' })
  })

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool-calls'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
  ])('stop_reason %s finishes with %s', (stopReason, reason) => {
    const text = rec['text.sse'].replace('"stop_reason":"end_turn"', `"stop_reason":"${stopReason}"`)
    expect(parseOk(anthropic, text).at(-1)).toEqual({ type: 'finish', reason })
  })

  it('an in-stream overloaded_error throws PROVIDER_OVERLOADED with the vendor message', () => {
    const { events, error } = runDialect(anthropic, [utf8(rec['error-overloaded.sse'])])
    expect(events).toEqual([])
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ code: 'PROVIDER_OVERLOADED', message: 'Overloaded', vendorType: 'overloaded_error', retryable: true })
  })

  it('an error after output keeps the output and throws the classified error', () => {
    const { events, error } = runDialect(anthropic, [utf8(rec['error-midstream.sse'])])
    expect(events).toEqual([{ type: 'text-delta', text: 'Partial answer' }])
    expect(error).toMatchObject({ code: 'PROVIDER_SERVER', message: 'Internal server error', vendorType: 'api_error' })
  })

  it('a stream cut before message_stop is PROVIDER_STREAM_TRUNCATED, not a success', () => {
    const { events, error } = runDialect(anthropic, [utf8(rec['truncated.sse'])])
    expect(events.map((e) => e.type)).toEqual(['text-delta', 'text-delta', 'text-delta', 'text-delta'])
    expect(error).toMatchObject({ name: 'ProviderError', code: 'PROVIDER_STREAM_TRUNCATED' })
  })

  it('data that is not JSON is PROVIDER_PROTOCOL', () => {
    const { error } = runDialect(anthropic, [utf8('event: message_start\ndata: {not json\n\n')])
    expect(error).toMatchObject({ code: 'PROVIDER_PROTOCOL' })
  })

  it('ignores event types it does not know, as the docs ask', () => {
    const extra = 'event: future_event\ndata: {"type":"future_event","x":1}\n\n'
    expect(parseOk(anthropic, extra + rec['text.sse'])).toEqual(parseOk(anthropic, rec['text.sse']))
  })

  it('redacted_thinking arrives whole, in order between the signed thinking and the text', () => {
    expect(parseOk(anthropic, rec['thinking-redacted-tools.sse']).slice(0, 4)).toEqual([
      { type: 'reasoning-delta', text: 'The user wants 17 * 23. I should use the calculator tool.' },
      { type: 'reasoning-signature', signature: SIGNATURE },
      { type: 'reasoning-redacted', data: REDACTED },
      { type: 'text-delta', text: 'Let me compute that.' },
    ])
  })
})

describe('anthropic: thinking blocks go back on the next turn', () => {
  const model: ModelRow = { id: 'claude-sonnet-4-5', name: 'c', limits: { context: 200_000, output: 64_000 }, modalities: { input: ['text'], output: ['text'] }, toolCall: true, reasoning: true, cost: { input: 1, output: 1 } }

  it('a recorded thinking + redacted_thinking + tool_use turn is replayed block for block, in order', () =>
    withLedger(uniqueName('redacted'), async (ledger) => {
      const tools = new ToolRegistry()
      tools.register('calculator', calculator)
      const requests: LlmRequest[] = []
      const turns: LlmEvent[][] = [parseOk(anthropic, rec['thinking-redacted-tools.sse']), parseOk(anthropic, rec['text.sse'])]
      // The session's own path: parser events → runner → durable events → history → next request.
      const session = scriptedSession(ledger, 'session.redacted', async function* (request) {
        requests.push(structuredClone(request))
        yield turns[requests.length - 1]!
      }, { tools })
      await session.runner.wake()
      expect(requests).toHaveLength(2)
      const http = anthropic.request({ request: requests[1]!, model, baseUrl: 'https://api.anthropic.com/v1', apiKey: 'k', headers: {} })
      const body = (await http.json()) as { messages: { role: string; content: unknown }[] }
      expect(body.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'The user wants 17 * 23. I should use the calculator tool.', signature: SIGNATURE },
            { type: 'redacted_thinking', data: REDACTED },
            { type: 'text', text: 'Let me compute that.' },
            { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'calculator', input: { expression: '17*23' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: expect.stringContaining('391') }] },
      ])
    }))
})
