import { describe, expect, it } from 'vitest'
import { classifyVendorError, ProviderError } from '../../objects/llm/errors.ts'
import { errorFromResponse } from '../../objects/llm/http-error.ts'
import { RETRY_DEFAULTS, retryAfterMs, retryDelay, sleep } from '../../objects/llm/retry.ts'

describe('retryAfterMs', () => {
  it('reads retry-after-ms first, then Retry-After seconds or HTTP date', () => {
    const now = Date.parse('2026-11-01T12:00:00Z')
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500.4', 'retry-after': '9' }), now)).toBe(1500)
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000)
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500)
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 01 Nov 2026 12:00:07 GMT' }), now)).toBe(7000)
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 01 Nov 2026 11:00:00 GMT' }), now)).toBe(0)
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(retryAfterMs(new Headers(), now)).toBeUndefined()
  })
})

describe('retryDelay', () => {
  const server = new ProviderError('PROVIDER_SERVER', 'boom', { httpStatus: 500 })

  it('retries only retryable provider errors, within the attempt bound', () => {
    expect(retryDelay(server, 1, 3, () => 1)).toBe(500)
    expect(retryDelay(server, 3, 3)).toBeUndefined()
    expect(retryDelay(new ProviderError('PROVIDER_AUTH', 'no'), 1, 3)).toBeUndefined()
    expect(retryDelay(new ProviderError('PROVIDER_BAD_REQUEST', 'no'), 1, 3)).toBeUndefined()
    expect(retryDelay(new TypeError('bug'), 1, 3)).toBeUndefined()
  })

  it('backs off exponentially with jitter in [75%, 100%], capped', () => {
    expect(retryDelay(server, 2, 10, () => 1)).toBe(1000)
    expect(retryDelay(server, 2, 10, () => 0)).toBe(750)
    expect(retryDelay(server, 9, 10, () => 1)).toBe(RETRY_DEFAULTS.maxBackoffMs)
  })

  it('the vendor’s Retry-After wins, unless it is longer than the ceiling', () => {
    const asked = (ms: number) => new ProviderError('PROVIDER_RATE_LIMITED', 'wait', { httpStatus: 429, retryAfterMs: ms })
    expect(retryDelay(asked(0), 1, 3)).toBe(0)
    expect(retryDelay(asked(30_000), 1, 3)).toBe(30_000)
    expect(retryDelay(asked(RETRY_DEFAULTS.maxRetryAfterMs + 1), 1, 3)).toBeUndefined()
  })
})

describe('classifyVendorError and errorFromResponse', () => {
  it.each([
    [401, undefined, 'PROVIDER_AUTH'],
    [403, 'permission_error', 'PROVIDER_AUTH'],
    [400, 'invalid_request_error', 'PROVIDER_BAD_REQUEST'],
    [404, 'not_found_error', 'PROVIDER_BAD_REQUEST'],
    [413, 'request_too_large', 'PROVIDER_BAD_REQUEST'],
    [429, 'rate_limit_error', 'PROVIDER_RATE_LIMITED'],
    [429, 'insufficient_quota', 'PROVIDER_QUOTA_EXCEEDED'],
    [500, 'api_error', 'PROVIDER_SERVER'],
    [502, undefined, 'PROVIDER_SERVER'],
    [503, undefined, 'PROVIDER_OVERLOADED'],
    [529, 'overloaded_error', 'PROVIDER_OVERLOADED'],
    [0, 'overloaded_error', 'PROVIDER_OVERLOADED'],
    [0, 'rate_limit_exceeded', 'PROVIDER_RATE_LIMITED'],
    [0, 'invalid_api_key', 'PROVIDER_AUTH'],
    [0, 'something_new', 'PROVIDER_FAILED'],
  ] as const)('HTTP %s with %s → %s', (status, type, code) => {
    expect(classifyVendorError(type, status)).toBe(code)
  })

  it('keeps the vendor message, type and request id; falls back to the body text', async () => {
    const anthropic = await errorFromResponse(
      Response.json(
        { type: 'error', error: { type: 'not_found_error', message: 'model: claude-9' } },
        { status: 404, headers: { 'request-id': 'req_1' } },
      ),
    )
    expect(anthropic).toMatchObject({ code: 'PROVIDER_BAD_REQUEST', message: 'model: claude-9', vendorType: 'not_found_error', requestId: 'req_1', httpStatus: 404 })
    const openai = await errorFromResponse(
      Response.json({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }, { status: 401 }),
    )
    expect(openai).toMatchObject({ code: 'PROVIDER_AUTH', message: 'Incorrect API key provided', vendorType: 'invalid_api_key' })
    const html = await errorFromResponse(new Response('<html>502 Bad Gateway</html>', { status: 502 }))
    expect(html).toMatchObject({ code: 'PROVIDER_SERVER', message: '<html>502 Bad Gateway</html>', retryable: true })
  })
})

describe('sleep', () => {
  it('waits, and rejects with the abort reason at once', async () => {
    const started = Date.now()
    await sleep(30)
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    const controller = new AbortController()
    const waiting = sleep(10_000, controller.signal)
    controller.abort(new Error('stop'))
    await expect(waiting).rejects.toThrow('stop')
  })
})
