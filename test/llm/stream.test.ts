/**
 * The full path over real HTTP: catalog row → dialect request → fetch to a fake
 * vendor on 127.0.0.1 → SSE → parser → normalized events, with retries and failures.
 */
import { describe, expect, it } from 'vitest'
import { composeCatalog } from '../../objects/llm/compose.ts'
import { anthropic } from '../../objects/llm/dialects/anthropic.ts'
import { openai } from '../../objects/llm/dialects/openai.ts'
import { openaiCompatible } from '../../objects/llm/dialects/openai-compatible.ts'
import { ProviderError } from '../../objects/llm/errors.ts'
import { streamModel } from '../../objects/llm/stream.ts'
import type { LlmEvent, LlmRequest } from '../../objects/llm/types.ts'
import { fakeVendor, type FakeStep } from './fake-vendor.ts'
import { FIXTURES } from './fixtures.ts'
import { collect, joinedDeltas, parseOk } from './support.ts'

const ask = (provider: string, model: string): LlmRequest => ({ provider, model, messages: [{ role: 'user', content: 'hi' }] })
const ANTHROPIC = ask('anthropic', 'claude-sonnet-4-5')
const OPENAI = ask('openai', 'gpt-5')
const DEEPSEEK = ask('deepseek', 'deepseek-reasoner')

/** A catalog whose vendors all point at this fake vendor. */
async function setup(steps: FakeStep[]) {
  const vendor = await fakeVendor(steps)
  const catalog = composeCatalog({
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: `${vendor.url}/v1`,
    OPENAI_API_KEY: 'sk-openai-test',
    OPENAI_BASE_URL: `${vendor.url}/v1`,
    DEEPSEEK_API_KEY: 'sk-deepseek-test',
    DEEPSEEK_BASE_URL: `${vendor.url}/v1`,
  })
  const sleeps: number[] = []
  const sleep = async (ms: number) => void sleeps.push(ms)
  return { vendor, catalog, sleeps, sleep }
}

const json = (body: unknown) => JSON.stringify(body)
const anthropicError = (type: string, message: string) => json({ type: 'error', error: { type, message }, request_id: 'req_011CTest' })
const openaiError = (message: string, type: string, code: string | null) => json({ error: { message, type, param: null, code } })

describe('streamModel over HTTP', () => {
  it('anthropic: exact headers and body on the wire; 7-byte chunks parse like the recording', async () => {
    const { vendor, catalog } = await setup([{ fixture: 'anthropic/thinking.sse', chunkSize: 7, delayMs: 1 }])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog }))
    expect(error).toBeUndefined()
    expect(events).toEqual(parseOk(anthropic, FIXTURES.anthropic['thinking.sse']))
    const [sent] = await vendor.requests()
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/messages' })
    expect(sent?.headers).toMatchObject({
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    })
    expect(sent?.headers.authorization).toBeUndefined()
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 64_000,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    })
  })

  it('openai: Bearer to /v1/responses; parallel tool calls arrive intact', async () => {
    const { vendor, catalog } = await setup([{ fixture: 'openai/tools-parallel.sse', chunkSize: 64 }])
    const { events, error } = await collect(streamModel(OPENAI, { catalog }))
    expect(error).toBeUndefined()
    // Argument deltas join per network chunk, and these chunks are 64 bytes: compare them joined.
    expect(joinedDeltas(events)).toEqual(joinedDeltas(parseOk(openai, FIXTURES.openai['tools-parallel.sse'])))
    const [sent] = await vendor.requests()
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/responses' })
    expect(sent?.headers.authorization).toBe('Bearer sk-openai-test')
  })

  it('openai-compatible (a base-URL row): Bearer to /v1/chat/completions; reasoning arrives', async () => {
    const { vendor, catalog } = await setup([{ fixture: 'openai-compatible/reasoning.sse', chunkSize: 3 }])
    const { events, error } = await collect(streamModel(DEEPSEEK, { catalog }))
    expect(error).toBeUndefined()
    expect(events).toEqual(parseOk(openaiCompatible, FIXTURES['openai-compatible']['reasoning.sse']))
    const [sent] = await vendor.requests()
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' })
    expect(sent?.headers.authorization).toBe('Bearer sk-deepseek-test')
    expect(JSON.parse(sent?.body ?? '')).toMatchObject({ model: 'deepseek-reasoner', stream_options: { include_usage: true } })
  })

  it('a catalog found when the turn starts (a function) streams the same events', async () => {
    const { catalog } = await setup([{ fixture: 'openai-compatible/reasoning.sse', chunkSize: 3 }])
    let asked = 0
    const { events, error } = await collect(streamModel(DEEPSEEK, { catalog: async () => (asked++, catalog) }))
    expect(error).toBeUndefined()
    expect(asked).toBe(1)
    expect(events).toEqual(parseOk(openaiCompatible, FIXTURES['openai-compatible']['reasoning.sse']))
  })

  it('a catalog that cannot be found fails the turn with its own error, before any request', async () => {
    const { vendor } = await setup([{ fixture: 'openai-compatible/reasoning.sse' }])
    const { events, error } = await collect(streamModel(DEEPSEEK, { catalog: async () => Promise.reject(new Error('config object unreachable')) }))
    expect(events).toEqual([])
    expect(error).toMatchObject({ message: 'config object unreachable' })
    expect(await vendor.requests()).toEqual([])
  })

  it('429 with Retry-After: waits what the vendor asked, yields a retry event, then streams', async () => {
    const { vendor, catalog, sleeps, sleep } = await setup([
      { status: 429, headers: { 'retry-after': '2', 'content-type': 'application/json' }, body: anthropicError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit') },
      { fixture: 'anthropic/text.sse' },
    ])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog, sleep }))
    expect(error).toBeUndefined()
    expect(events[0]).toEqual({
      type: 'retry',
      attempt: 1,
      delayMs: 2000,
      status: 429,
      message: 'Number of request tokens has exceeded your per-minute rate limit',
    })
    expect(events.slice(1)).toEqual(parseOk(anthropic, FIXTURES.anthropic['text.sse']))
    expect(sleeps).toEqual([2000])
    expect(await vendor.requests()).toHaveLength(2)
  })

  it('retry-after-ms is honoured with the real sleep', async () => {
    const { catalog } = await setup([
      { status: 429, headers: { 'retry-after-ms': '120' }, body: openaiError('Rate limit reached', 'requests', 'rate_limit_exceeded') },
      { fixture: 'openai/text.sse' },
    ])
    const started = Date.now()
    const { events, error } = await collect(streamModel(OPENAI, { catalog }))
    expect(error).toBeUndefined()
    expect(events[0]).toMatchObject({ type: 'retry', delayMs: 120, status: 429 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(100)
  })

  it('401 fails at once with PROVIDER_AUTH and the vendor message; no retry', async () => {
    const { vendor, catalog, sleeps, sleep } = await setup([
      { status: 401, headers: { 'content-type': 'application/json', 'request-id': 'req_011CAuth' }, body: anthropicError('authentication_error', 'invalid x-api-key') },
      { fixture: 'anthropic/text.sse' },
    ])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog, sleep }))
    expect(events).toEqual([])
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({
      code: 'PROVIDER_AUTH',
      message: 'invalid x-api-key',
      httpStatus: 401,
      vendorType: 'authentication_error',
      requestId: 'req_011CAuth',
    })
    expect((error as ProviderError).toJSON()).toMatchObject({ code: 'PROVIDER_AUTH', details: { httpStatus: 401 } })
    expect(sleeps).toEqual([])
    expect(await vendor.requests()).toHaveLength(1)
  })

  it('400 is PROVIDER_BAD_REQUEST with OpenAI’s message; not retried', async () => {
    const { vendor, catalog } = await setup([
      { status: 400, body: openaiError("Invalid type for 'input': expected an array.", 'invalid_request_error', 'invalid_type') },
    ])
    const { error } = await collect(streamModel(OPENAI, { catalog }))
    expect(error).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', message: "Invalid type for 'input': expected an array.", httpStatus: 400 })
    expect(await vendor.requests()).toHaveLength(1)
  })

  it('429 insufficient_quota is not a rate limit: PROVIDER_QUOTA_EXCEEDED at once', async () => {
    const { vendor, catalog } = await setup([
      { status: 429, body: openaiError('You exceeded your current quota.', 'insufficient_quota', 'insufficient_quota') },
    ])
    const { error } = await collect(streamModel(OPENAI, { catalog }))
    expect(error).toMatchObject({ code: 'PROVIDER_QUOTA_EXCEEDED', retryable: false })
    expect(await vendor.requests()).toHaveLength(1)
  })

  it('5xx until attempts run out: bounded retries, then the last error', async () => {
    const fail = { status: 500, body: anthropicError('api_error', 'Internal server error') }
    const { vendor, catalog, sleeps, sleep } = await setup([fail, fail, fail, { fixture: 'anthropic/text.sse' }])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog, sleep, maxAttempts: 3 }))
    expect(events.map((e) => e.type)).toEqual(['retry', 'retry'])
    expect(events.map((e) => (e as Extract<LlmEvent, { type: 'retry' }>).attempt)).toEqual([1, 2])
    expect(error).toMatchObject({ code: 'PROVIDER_SERVER', httpStatus: 500, message: 'Internal server error' })
    expect(await vendor.requests()).toHaveLength(3)
    // Exponential backoff with jitter: 500 ms then 1 s, each within [75%, 100%].
    expect(sleeps[0]).toBeGreaterThanOrEqual(375)
    expect(sleeps[0]).toBeLessThanOrEqual(500)
    expect(sleeps[1]).toBeGreaterThanOrEqual(750)
    expect(sleeps[1]).toBeLessThanOrEqual(1000)
  })

  it('429 after every attempt is PROVIDER_RATE_LIMITED', async () => {
    const limited = { status: 429, headers: { 'retry-after': '1' }, body: anthropicError('rate_limit_error', 'rate limited') }
    const { catalog, sleep } = await setup([limited, limited])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog, sleep, maxAttempts: 2 }))
    expect(events).toHaveLength(1)
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterMs: 1000, status: 429 })
  })

  it('a Retry-After longer than the ceiling is not waited for', async () => {
    const { vendor, catalog, sleeps, sleep } = await setup([
      { status: 429, headers: { 'retry-after': '3600' }, body: anthropicError('rate_limit_error', 'come back in an hour') },
    ])
    const { error } = await collect(streamModel(ANTHROPIC, { catalog, sleep }))
    expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterMs: 3_600_000 })
    expect(sleeps).toEqual([])
    expect(await vendor.requests()).toHaveLength(1)
  })

  it('529 overloaded is retried', async () => {
    const { catalog, sleep } = await setup([
      { status: 529, body: anthropicError('overloaded_error', 'Overloaded') },
      { fixture: 'anthropic/text.sse' },
    ])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog, sleep }))
    expect(error).toBeUndefined()
    expect(events[0]).toMatchObject({ type: 'retry', status: 529, message: 'Overloaded' })
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('an in-stream overloaded_error before any output is retried (status 0: inside a 200)', async () => {
    const { vendor, catalog, sleep } = await setup([{ fixture: 'anthropic/error-overloaded.sse' }, { fixture: 'anthropic/text.sse' }])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog, sleep }))
    expect(error).toBeUndefined()
    expect(events[0]).toMatchObject({ type: 'retry', attempt: 1, status: 0, message: 'Overloaded' })
    expect(events.slice(1)).toEqual(parseOk(anthropic, FIXTURES.anthropic['text.sse']))
    expect(await vendor.requests()).toHaveLength(2)
  })

  it('an in-stream error after output is thrown, never retried (output is not duplicated)', async () => {
    const { vendor, catalog, sleep } = await setup([{ fixture: 'anthropic/error-midstream.sse' }, { fixture: 'anthropic/text.sse' }])
    const { events, error } = await collect(streamModel(ANTHROPIC, { catalog, sleep }))
    expect(events).toEqual([{ type: 'text-delta', text: 'Partial answer' }])
    expect(error).toMatchObject({ code: 'PROVIDER_SERVER', message: 'Internal server error' })
    expect(await vendor.requests()).toHaveLength(1)
  })

  it('a body that ends before the terminal event is PROVIDER_STREAM_TRUNCATED', async () => {
    const { catalog, sleep } = await setup([{ fixture: 'openai-compatible/truncated.sse', chunkSize: 100 }])
    const { events, error } = await collect(streamModel(DEEPSEEK, { catalog, sleep }))
    expect(events.filter((e) => e.type === 'text-delta')).toHaveLength(5)
    expect(events.some((e) => e.type === 'finish')).toBe(false)
    expect(error).toMatchObject({ code: 'PROVIDER_STREAM_TRUNCATED' })
  })

  it('a connection reset mid-body is PROVIDER_STREAM_TRUNCATED too', async () => {
    const { catalog, sleep } = await setup([{ fixture: 'openai/text.sse', resetAfterBytes: 3000 }])
    const { events, error } = await collect(streamModel(OPENAI, { catalog, sleep }))
    expect(events.length).toBeGreaterThan(0)
    expect(events.some((e) => e.type === 'finish')).toBe(false)
    expect(error).toMatchObject({ code: 'PROVIDER_STREAM_TRUNCATED' })
  })

  it('a reset before any output is retried', async () => {
    const { catalog, sleep } = await setup([{ fixture: 'openai/text.sse', resetAfterBytes: 200 }, { fixture: 'openai/text.sse' }])
    const { events, error } = await collect(streamModel(OPENAI, { catalog, sleep }))
    expect(error).toBeUndefined()
    expect(events[0]).toMatchObject({ type: 'retry', status: 0 })
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  // workerd logs its own "Network connection lost" lines for the refused connection; they are expected.
  it('a vendor nobody answers is PROVIDER_NETWORK, after bounded retries', async () => {
    const catalog = composeCatalog({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })
    const sleeps: number[] = []
    const { events, error } = await collect(
      streamModel(OPENAI, { catalog, maxAttempts: 2, sleep: async (ms) => void sleeps.push(ms) }),
    )
    expect(events.map((e) => e.type)).toEqual(['retry'])
    expect(error).toMatchObject({ name: 'ProviderError', code: 'PROVIDER_NETWORK' })
  })

  it('abort stops a slow stream at once and throws the signal reason', async () => {
    // 40-byte chunks every 50 ms: the rest of the body after the first delta takes ~0.8 s more.
    const { catalog } = await setup([{ fixture: 'anthropic/text.sse', chunkSize: 40, delayMs: 50 }])
    const controller = new AbortController()
    const seen: LlmEvent[] = []
    let abortedAt = 0
    const error = await (async () => {
      try {
        for await (const event of streamModel(ANTHROPIC, { catalog, signal: controller.signal })) {
          seen.push(event)
          abortedAt = Date.now()
          controller.abort(new Error('interrupted by user'))
        }
      } catch (e) {
        return e
      }
    })()
    expect(seen).toEqual([{ type: 'text-delta', text: 'Hello' }])
    expect(error).toMatchObject({ message: 'interrupted by user' })
    expect(Date.now() - abortedAt).toBeLessThan(200)
  })

  it('abort during a retry wait ends the wait', async () => {
    const { catalog } = await setup([{ status: 503, headers: { 'retry-after': '30' }, body: '' }])
    const controller = new AbortController()
    const started = Date.now()
    const { events, error } = await collect(
      (async function* () {
        for await (const event of streamModel(ANTHROPIC, { catalog, signal: controller.signal })) {
          yield event
          if (event.type === 'retry') setTimeout(() => controller.abort(new Error('stop waiting')), 10)
        }
      })(),
    )
    expect(events).toEqual([{ type: 'retry', attempt: 1, delayMs: 30_000, status: 503, message: 'Service Unavailable' }])
    expect(error).toMatchObject({ message: 'stop waiting' })
    expect(Date.now() - started).toBeLessThan(5000)
  })
})
