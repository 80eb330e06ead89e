import { describe, expect, it } from 'vitest'
import { openai } from '../../objects/llm/dialects/openai.ts'
import { ProviderError } from '../../objects/llm/errors.ts'
import type { LlmEvent } from '../../objects/llm/types.ts'
import { FIXTURES } from './fixtures.ts'
import { joinedDeltas, parseOk, runDialect, utf8 } from './support.ts'

const rec = FIXTURES.openai
const usage = (inputTokens: number, outputTokens: number, cachedInputTokens = 0, reasoningTokens = 0) => ({
  type: 'usage',
  inputTokens,
  outputTokens,
  cachedInputTokens,
  reasoningTokens,
})

describe('openai (Responses) dialect: recorded streams', () => {
  it('plain text from output_text.delta; created / in_progress / *.done add nothing', () => {
    expect(parseOk(openai, rec['text.sse'])).toEqual([
      { type: 'text-delta', text: 'Hi' },
      { type: 'text-delta', text: ' there!' },
      { type: 'text-delta', text: ' Café' },
      { type: 'text-delta', text: ' au lait, 🌍' },
      { type: 'text-delta', text: ' and 日本語.' },
      usage(37, 11),
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('parallel function calls keyed by item id, answered by call_id', () => {
    const a = 'call_12xXv5eZB6UTJ6Su5zdqWqsG'
    const b = 'call_3UoF2ObGbi6HK1Fuw9XJCSF6'
    const c = 'call_Zn3b1zY7mQ0hWq2tX8cK4pLd'
    // A call's argument deltas may arrive joined (see WireReader): compare them joined.
    expect(joinedDeltas(parseOk(openai, rec['tools-parallel.sse']))).toEqual(joinedDeltas(<LlmEvent[]>[
      { type: 'tool-input-start', id: a, name: 'get_weather' },
      ...['{"', 'location', '":"', 'Paris,', ' France', '"}'].map((delta) => ({ type: 'tool-input-delta' as const, id: a, delta })),
      { type: 'tool-input-end', id: a },
      { type: 'tool-call', id: a, name: 'get_weather', input: { location: 'Paris, France' } },
      { type: 'tool-input-start', id: b, name: 'get_weather' },
      { type: 'tool-input-delta', id: b, delta: '{"location":' },
      { type: 'tool-input-delta', id: b, delta: '"Bogotá, Colombia"}' },
      { type: 'tool-input-end', id: b },
      { type: 'tool-call', id: b, name: 'get_weather', input: { location: 'Bogotá, Colombia' } },
      { type: 'tool-input-start', id: c, name: 'get_time' },
      { type: 'tool-input-end', id: c },
      { type: 'tool-call', id: c, name: 'get_time', input: {} },
      usage(291, 58, 128),
      { type: 'finish', reason: 'tool-calls' },
    ]))
  })

  it('reasoning summaries stream as reasoning; the encrypted item becomes the signature', () => {
    expect(parseOk(openai, rec['reasoning.sse'])).toEqual([
      { type: 'reasoning-delta', text: '**Answering' },
      { type: 'reasoning-delta', text: ' a simple' },
      { type: 'reasoning-delta', text: ' question**\n\nThe user asks for 2+2.' },
      { type: 'reasoning-delta', text: '\n\n' },
      { type: 'reasoning-delta', text: 'It is 4.' },
      {
        type: 'reasoning-signature',
        signature: JSON.stringify({
          id: 'rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac',
          encrypted_content: 'gAAAAABods8DzWv0Ojjc8wZ5dHk3rJ4Xq6aY1kP0mBv_3lI8q9sRzT2uVwXyZa==',
        }),
      },
      { type: 'text-delta', text: '2 + 2' },
      { type: 'text-delta', text: ' = 4' },
      usage(13, 150, 0, 128),
      { type: 'finish', reason: 'stop' },
    ])
  })

  it('response.incomplete for max_output_tokens finishes with length, with usage', () => {
    expect(parseOk(openai, rec['incomplete.sse']).slice(-2)).toEqual([usage(20, 16), { type: 'finish', reason: 'length' }])
  })

  it.each([
    ['max_output_tokens', 'length'],
    ['content_filter', 'content-filter'],
    ['something_new', 'other'],
  ])('incomplete reason %s finishes with %s', (why, reason) => {
    const text = rec['incomplete.sse'].replace('"reason":"max_output_tokens"', `"reason":"${why}"`)
    expect(parseOk(openai, text).at(-1)).toEqual({ type: 'finish', reason })
  })

  it('a refusal streams as text and finishes with content-filter', () => {
    const text = rec['text.sse'].replaceAll('response.output_text.delta', 'response.refusal.delta')
    const events = parseOk(openai, text)
    expect(events[0]).toEqual({ type: 'text-delta', text: 'Hi' })
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'content-filter' })
  })

  it('response.failed throws the classified vendor error', () => {
    const { events, error } = runDialect(openai, [utf8(rec['failed.sse'])])
    expect(events).toEqual([])
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({
      code: 'PROVIDER_SERVER',
      message: 'The model failed to generate a response.',
      vendorType: 'server_error',
    })
  })

  it('an error event throws with its code and message', () => {
    const { error } = runDialect(openai, [utf8(rec['error.sse'])])
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', vendorType: 'rate_limit_exceeded' })
    expect((error as Error).message).toMatch(/^Rate limit reached for gpt-5/)
  })

  it('an error event with the error nested under `error` is read too', () => {
    const nested = 'event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Too long"}}\n\n'
    expect(runDialect(openai, [utf8(nested)]).error).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', message: 'Too long' })
  })

  it('a stream without its terminal response event is PROVIDER_STREAM_TRUNCATED', () => {
    const { events, error } = runDialect(openai, [utf8(rec['truncated.sse'])])
    expect(events).toHaveLength(5)
    expect(error).toMatchObject({ code: 'PROVIDER_STREAM_TRUNCATED' })
  })
})
