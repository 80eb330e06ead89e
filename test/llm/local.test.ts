/**
 * The local default model: deterministic, offline, and read through the real
 * OpenAI-compatible dialect from the bytes its in-process fetch streams.
 */
import { describe, expect, it } from 'vitest'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { localFetch } from '../../objects/llm/local/fetch.ts'
import { streamModel } from '../../objects/llm/stream.ts'
import type { LlmEvent, LlmMessage, LlmRequest } from '../../objects/llm/types.ts'
import { collect, runDialect, utf8 } from './support.ts'

const catalog = composeCatalog({})
const local = (messages: LlmMessage[], extra: Partial<LlmRequest> = {}): LlmRequest => ({
  provider: 'local',
  model: 'echo-1',
  messages,
  ...extra,
})
const say = (content: string) => local([{ role: 'user', content }])
const text = (events: LlmEvent[]) => events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('')
const run = async (request: LlmRequest, options: { signal?: AbortSignal } = {}) => {
  const sleeps: number[] = []
  const result = await collect(streamModel(request, { catalog, sleep: async (ms) => void sleeps.push(ms), ...options }))
  return { ...result, sleeps }
}

describe('local/echo-1', () => {
  it('is the default with no keys, needs no network, and echoes the prompt word by word', async () => {
    expect(catalog.default()).toMatchObject({ provider: { id: 'local' }, model: { id: 'echo-1' } })
    const { events, error } = await run(say('hello   there,\nworld'))
    expect(error).toBeUndefined()
    expect(events.filter((e) => e.type === 'text-delta')).toEqual([
      { type: 'text-delta', text: 'Echo:' },
      { type: 'text-delta', text: ' hello' },
      { type: 'text-delta', text: ' there,' },
      { type: 'text-delta', text: ' world' },
    ])
    expect(events.slice(-2)).toEqual([
      { type: 'usage', inputTokens: expect.any(Number), outputTokens: 4, cachedInputTokens: 0, reasoningTokens: 0 },
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('is deterministic: the same request gives the same events', async () => {
    const request = say('/think ponder\n/tool calculator {"expression":"2+3"}\nwhat is 2+3?')
    expect((await run(request)).events).toEqual((await run(request)).events)
  })

  it('/tool lines become parallel tool calls with deterministic ids', async () => {
    const { events, error } = await run(say('/tool calculator {"expression":"2+3"}\n/tool notes {"op":"list"}\n/tool clock'))
    expect(error).toBeUndefined()
    expect(events.filter((e) => e.type === 'tool-call')).toEqual([
      { type: 'tool-call', id: 'call_1_1', name: 'calculator', input: { expression: '2+3' } },
      { type: 'tool-call', id: 'call_1_2', name: 'notes', input: { op: 'list' } },
      { type: 'tool-call', id: 'call_1_3', name: 'clock', input: {} },
    ])
    expect(events.filter((e) => e.type === 'tool-input-delta').length).toBeGreaterThan(3)
    expect(text(events)).toBe('')
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('states tool results and stops, so an agent loop ends', async () => {
    const { events } = await run(
      local([
        { role: 'user', content: '/tool calculator {"expression":"2+3"}\n/tool notes {"op":"list"}' },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', id: 'call_1_1', name: 'calculator', input: { expression: '2+3' } },
            { type: 'tool-call', id: 'call_1_2', name: 'notes', input: { op: 'list' } },
          ],
        },
        { role: 'tool', toolCallId: 'call_1_1', name: 'calculator', content: '5' },
        { role: 'tool', toolCallId: 'call_1_2', name: 'notes', content: '[]' },
      ]),
    )
    expect(text(events)).toBe('Tool results: calculator returned 5; notes returned []')
    expect(events.some((e) => e.type === 'tool-call')).toBe(false)
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('a second tool turn gets new call ids', async () => {
    const { events } = await run(
      local([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [{ type: 'text', text: 'Echo: a' }] },
        { role: 'user', content: '/tool clock' },
      ]),
    )
    expect(events.find((e) => e.type === 'tool-call')).toMatchObject({ id: 'call_2_1' })
  })

  it('/think streams reasoning before the answer; /say sets the answer', async () => {
    const { events } = await run(say('/think first, the plan\n/say Done.'))
    expect(events.map((e) => e.type)).toEqual([
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-delta',
      'text-delta',
      'usage',
      'finish',
    ])
    expect(events.filter((e) => e.type === 'reasoning-delta').map((e) => e.text).join('')).toBe('first, the plan')
    expect(text(events)).toBe('Done.')
    expect(events.at(-2)).toMatchObject({ type: 'usage', reasoningTokens: 3, outputTokens: 4 })
  })

  it('/tokens N streams exactly N text tokens', async () => {
    const { events } = await run(say('/tokens 10000'))
    const deltas = events.filter((e) => e.type === 'text-delta')
    expect(deltas).toHaveLength(10000)
    expect(events.at(-2)).toMatchObject({ type: 'usage', outputTokens: 10000 })
  })

  it('/finish sets the finish reason', async () => {
    expect((await run(say('/finish length\nabc'))).events.at(-1)).toEqual({ type: 'finish', reason: 'length' })
    expect((await run(say('/finish content-filter'))).events.at(-1)).toEqual({ type: 'finish', reason: 'content-filter' })
  })

  it('/fail 401 is PROVIDER_AUTH at once; /fail 429 retries, then PROVIDER_RATE_LIMITED', async () => {
    const auth = await run(say('/fail 401 bad key'))
    expect(auth.events).toEqual([])
    expect(auth.error).toMatchObject({ code: 'PROVIDER_AUTH', message: 'bad key', httpStatus: 401 })
    const limited = await run(say('/fail 429'))
    expect(limited.events.map((e) => e.type)).toEqual(['retry', 'retry'])
    expect(limited.sleeps).toEqual([0, 0])
    expect(limited.error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED' })
  })

  it('/truncate ends the stream without its terminal event: PROVIDER_STREAM_TRUNCATED', async () => {
    const { events, error } = await run(say('/truncate\nhello'))
    expect(text(events)).toBe('Echo: hello')
    expect(error).toMatchObject({ code: 'PROVIDER_STREAM_TRUNCATED' })
  })

  it('/slow paces chunks and abort stops it at once', async () => {
    const controller = new AbortController()
    const started = Date.now()
    const seen: LlmEvent[] = []
    const error = await (async () => {
      try {
        for await (const event of streamModel(say('/slow 40\n/tokens 100'), { catalog, signal: controller.signal })) {
          seen.push(event)
          if (seen.length === 3) controller.abort(new Error('interrupt'))
        }
      } catch (e) {
        return e
      }
    })()
    expect(seen).toHaveLength(3)
    expect(error).toMatchObject({ message: 'interrupt' })
    // 3 events are 4 chunks of 40 ms; the whole answer would take over 4 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(120)
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('speaks the exact chat-completions wire format', async () => {
    const body = { model: 'echo-1', stream: true, messages: [{ role: 'user', content: '/tool f {"a":1}\nhi' }] }
    const response = await localFetch('http://local.neuron/v1/chat/completions', { method: 'POST', body: JSON.stringify(body) })
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    const wire = await response.text()
    const head = '{"id":"chatcmpl-local","object":"chat.completion.chunk","created":0,"model":"echo-1","system_fingerprint":null,"choices":'
    const chunk = (delta: string, finish = 'null') =>
      `data: ${head}[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}\n\n`
    const usage = '{"prompt_tokens":13,"completion_tokens":2,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}'
    expect(wire).toBe(
      chunk('{"role":"assistant","content":""}') +
        chunk('{"tool_calls":[{"index":0,"id":"call_1_1","type":"function","function":{"name":"f","arguments":""}}]}') +
        chunk('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\":1}"}}]}') +
        chunk('{}', '"tool_calls"') +
        `data: ${head}[],"usage":${usage}}\n\n` +
        'data: [DONE]\n\n',
    )
    // …and the real dialect parser reads exactly what streamModel yields.
    const parsed = runDialect(openaiCompatible, [utf8(wire)])
    const streamed = await run(local([{ role: 'user', content: '/tool f {"a":1}\nhi' }]))
    expect(parsed.error).toBeUndefined()
    expect(streamed.events).toEqual(parsed.events)
  })

  it('rejects what a chat-completions server would reject', async () => {
    const notStreaming = await localFetch('http://local.neuron/v1/chat/completions', { method: 'POST', body: '{"messages":[]}' })
    expect(notStreaming.status).toBe(400)
    expect(await notStreaming.json()).toMatchObject({ error: { type: 'invalid_request_error' } })
    expect((await localFetch('http://local.neuron/v1/responses', { method: 'POST', body: '{}' })).status).toBe(404)
  })
})
