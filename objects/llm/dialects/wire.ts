/**
 * Small pieces every dialect shares: the JSON POST it sends, the JSON it
 * reads off each event, tool input decoding, and the truncation error.
 */
import type { Json } from '../../ledger/json.ts'
import { ProviderError } from '../errors.ts'

/**
 * A streaming JSON POST.
 *
 * @example
 * postJson('https://api.openai.com/v1/responses', { authorization: 'Bearer sk-…' }, { model: 'gpt-5', stream: true })
 */
export function postJson(url: string, headers: Record<string, string>, body: Record<string, unknown>): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
}

/**
 * The JSON of one event's `data`, typed as the dialect's wire shape (read
 * defensively: every field optional). Non-JSON is a protocol error, never a skip.
 */
export function readJson<T>(data: string, dialect: string): T {
  try {
    return JSON.parse(data) as T
  } catch (cause) {
    throw new ProviderError('PROVIDER_PROTOCOL', `${dialect}: event data is not JSON: ${data.slice(0, 200)}`, {
      cause,
    })
  }
}

/**
 * A tool call's complete input from its streamed argument text. Empty means `{}`;
 * text that is not JSON is passed on as a string so the tool's input decoding
 * fails and tells the model, instead of failing the whole turn.
 *
 * @example
 * toolInput('{"expression":"2+3"}') // { expression: '2+3' }
 */
export function toolInput(text: string): Json {
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text) as Json
  } catch {
    return text
  }
}

/** The body ended before the dialect's terminal event. */
export function truncated(dialect: string, missing: string): ProviderError {
  return new ProviderError('PROVIDER_STREAM_TRUNCATED', `${dialect}: stream ended before ${missing}`)
}

/** A number field of wire JSON, 0 when absent or null. */
export function count(value: unknown): number {
  return typeof value === 'number' ? value : 0
}

/** The first argument that is a non-empty string. */
export function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === 'string' && value !== '') return value
  return undefined
}
