/**
 * When to try a provider turn again, and after how long. Retryable failures
 * (429, overload, 5xx, network, truncation) are retried a bounded number of
 * times; the vendor's `retry-after-ms` / `Retry-After` wins over backoff, and a
 * vendor asking for longer than `MAX_RETRY_AFTER_MS` is not waited for.
 */
import { ProviderError } from './errors.ts'

export const RETRY_DEFAULTS = {
  /** Total attempts, the first included. */
  maxAttempts: 3,
  baseDelayMs: 500,
  maxBackoffMs: 8_000,
  maxRetryAfterMs: 60_000,
} as const

/**
 * The delay before attempt `attempt + 1`, or `undefined` when `error` must be thrown.
 *
 * @example
 * retryDelay(new ProviderError('PROVIDER_RATE_LIMITED', 'slow down', { retryAfterMs: 2000 }), 1, 3) // 2000
 * retryDelay(new ProviderError('PROVIDER_AUTH', 'bad key'), 1, 3) // undefined
 */
export function retryDelay(error: unknown, attempt: number, maxAttempts: number, random = Math.random): number | undefined {
  if (!(error instanceof ProviderError) || !error.retryable || attempt >= maxAttempts) return undefined
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= RETRY_DEFAULTS.maxRetryAfterMs ? error.retryAfterMs : undefined
  }
  const ceiling = Math.min(RETRY_DEFAULTS.maxBackoffMs, RETRY_DEFAULTS.baseDelayMs * 2 ** (attempt - 1))
  // Jitter keeps many sessions that failed together from retrying together.
  return Math.round(ceiling * (0.75 + 0.25 * random()))
}

/**
 * The delay a response asks for: `retry-after-ms` (OpenAI, Anthropic), else
 * `Retry-After` as seconds or an HTTP date.
 *
 * @example
 * retryAfterMs(new Headers({ 'retry-after': '2' })) // 2000
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms)
  const raw = headers.get('retry-after')?.trim()
  if (!raw) return undefined
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000)
  const at = Date.parse(raw)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * The default wait between attempts; rejects with the signal's reason on abort.
 *
 * @example
 * await sleep(500, controller.signal)
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
