/**
 * A non-2xx vendor response as a typed `ProviderError` carrying the vendor's
 * own message. Anthropic answers `{ type: 'error', error: { type, message } }`,
 * OpenAI and compatible servers `{ error: { message, type, code } }`; anything
 * else keeps the start of the body as the message.
 */
import { classifyVendorError, ProviderError } from './errors.ts'
import { retryAfterMs } from './retry.ts'
import { firstString } from './dialects/wire.ts'

interface WireErrorBody {
  error?: { type?: unknown; code?: unknown; message?: unknown } | string
  message?: unknown
}

/**
 * @example
 * if (!response.ok) throw await errorFromResponse(response)
 */
export async function errorFromResponse(response: Response, now = Date.now()): Promise<ProviderError> {
  const text = await response.text().catch(() => '')
  let body: WireErrorBody = {}
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object') body = parsed as WireErrorBody
  } catch {}
  const error = typeof body.error === 'object' ? body.error : undefined
  const vendorType = firstString(error?.code, error?.type)
  const message =
    firstString(error?.message, body.error, body.message, text.slice(0, 500), response.statusText) ??
    `HTTP ${response.status}`
  return new ProviderError(classifyVendorError(vendorType, response.status), message, {
    httpStatus: response.status,
    vendorType,
    retryAfterMs: retryAfterMs(response.headers, now),
    requestId: firstString(response.headers.get('request-id'), response.headers.get('x-request-id')),
  })
}
