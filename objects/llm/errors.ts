/**
 * The typed failures of a provider turn. Each carries a machine-readable code;
 * `ProviderError` also carries the vendor's own words (`vendorType`, message)
 * and whether retrying can help.
 */
import { NeuronError } from '../core/errors.ts'

/** Machine-readable codes of a failed provider turn. */
export type ProviderErrorCode =
  | 'PROVIDER_AUTH' // 401/403: key missing, wrong or without permission
  | 'PROVIDER_BAD_REQUEST' // 400/404/413/422: the request itself is wrong
  | 'PROVIDER_RATE_LIMITED' // 429, after retries ran out (or Retry-After too long)
  | 'PROVIDER_QUOTA_EXCEEDED' // out of credit: retrying cannot help
  | 'PROVIDER_OVERLOADED' // 529/503 or an in-stream overloaded error
  | 'PROVIDER_SERVER' // other 5xx or an in-stream server error
  | 'PROVIDER_NETWORK' // fetch itself failed before a response
  | 'PROVIDER_STREAM_TRUNCATED' // the body ended (or broke) before the terminal event
  | 'PROVIDER_PROTOCOL' // bytes that are not the dialect's wire format
  | 'PROVIDER_FAILED' // the vendor reported a failure we cannot classify

const RETRYABLE: ReadonlySet<string> = new Set([
  'PROVIDER_RATE_LIMITED',
  'PROVIDER_OVERLOADED',
  'PROVIDER_SERVER',
  'PROVIDER_NETWORK',
  'PROVIDER_STREAM_TRUNCATED',
])

export interface ProviderErrorFields {
  /** HTTP status of the vendor response; 0 when the failure came inside a 200 stream or before any response. */
  httpStatus?: number
  /** The vendor's own error type or code, e.g. `overloaded_error`, `invalid_api_key`. */
  vendorType?: string
  /** Delay the vendor asked for (Retry-After), in ms. */
  retryAfterMs?: number
  /** The vendor's request id header, for support tickets. */
  requestId?: string
  cause?: unknown
}

/**
 * A provider turn that failed. The message is the vendor's message when it gave one.
 *
 * @example
 * throw new ProviderError('PROVIDER_AUTH', 'invalid x-api-key', { httpStatus: 401, vendorType: 'authentication_error' })
 */
export class ProviderError extends NeuronError {
  override name = 'ProviderError'
  declare readonly code: ProviderErrorCode
  readonly httpStatus: number
  readonly vendorType: string | undefined
  readonly retryAfterMs: number | undefined
  readonly requestId: string | undefined

  constructor(code: ProviderErrorCode, message: string, fields: ProviderErrorFields = {}) {
    const { cause, ...rest } = fields
    super(code, message, { status: code === 'PROVIDER_RATE_LIMITED' ? 429 : 502, details: { ...rest }, cause })
    this.httpStatus = fields.httpStatus ?? 0
    this.vendorType = fields.vendorType
    this.retryAfterMs = fields.retryAfterMs
    this.requestId = fields.requestId
  }

  /** Whether another attempt may succeed (rate limits, overload, 5xx, network, truncation). */
  get retryable(): boolean {
    return RETRYABLE.has(this.code)
  }
}

/** An endpoint kind no dialect implements: fails loudly instead of degrading to another protocol. */
export class UnsupportedEndpointError extends NeuronError {
  override name = 'UnsupportedEndpointError'
  readonly endpoint: string
  constructor(endpoint: string, supported: readonly string[]) {
    super('UNSUPPORTED_ENDPOINT', `no wire dialect implements endpoint kind "${endpoint}"`, {
      status: 501,
      details: { endpoint, supported: [...supported] },
    })
    this.endpoint = endpoint
  }
}

/** A provider/model pair the catalog does not hold. */
export class UnknownModelError extends NeuronError {
  override name = 'UnknownModelError'
  constructor(provider: string, model: string) {
    super('UNKNOWN_MODEL', `the catalog has no model "${provider}/${model}"`, {
      status: 400,
      details: { provider, model },
    })
  }
}

/** A known provider that composition left disabled (typically: no API key in env). */
export class ProviderNotConfiguredError extends NeuronError {
  override name = 'ProviderNotConfiguredError'
  constructor(provider: string, keyNames: readonly string[]) {
    const hint = keyNames.length === 0 ? '' : ` (set ${keyNames.join(' or ')})`
    super('PROVIDER_NOT_CONFIGURED', `provider "${provider}" is not configured${hint}`, {
      status: 400,
      details: { provider, env: [...keyNames] },
    })
  }
}

/**
 * Our code for a vendor failure. An HTTP status decides when there is one; an
 * in-stream error (status 0) is classified by the vendor's type/code string
 * (Anthropic `error.type`, OpenAI `error.code` or `error.type`).
 *
 * @example
 * classifyVendorError('overloaded_error', 0) // 'PROVIDER_OVERLOADED'
 * classifyVendorError('invalid_request_error', 401) // 'PROVIDER_AUTH'
 */
export function classifyVendorError(vendorType: string | undefined, httpStatus: number): ProviderErrorCode {
  // OpenAI answers 429 for an empty balance too; waiting will not refill it.
  if (vendorType === 'insufficient_quota' || vendorType === 'billing_error') return 'PROVIDER_QUOTA_EXCEEDED'
  if (httpStatus === 401 || httpStatus === 403) return 'PROVIDER_AUTH'
  if (httpStatus === 429) return 'PROVIDER_RATE_LIMITED'
  if (httpStatus === 503 || httpStatus === 529) return 'PROVIDER_OVERLOADED'
  if (httpStatus === 408 || httpStatus >= 500) return 'PROVIDER_SERVER'
  if (httpStatus >= 400) return 'PROVIDER_BAD_REQUEST'
  switch (vendorType) {
    case 'authentication_error':
    case 'permission_error':
    case 'invalid_api_key':
      return 'PROVIDER_AUTH'
    case 'invalid_request_error':
    case 'not_found_error':
    case 'request_too_large':
    case 'context_length_exceeded':
      return 'PROVIDER_BAD_REQUEST'
    case 'rate_limit_error':
    case 'rate_limit_exceeded':
      return 'PROVIDER_RATE_LIMITED'
    case 'overloaded_error':
    case 'server_is_overloaded':
    case 'slow_down':
      return 'PROVIDER_OVERLOADED'
    case 'api_error':
    case 'server_error':
      return 'PROVIDER_SERVER'
  }
  return 'PROVIDER_FAILED'
}
