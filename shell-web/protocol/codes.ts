/**
 * Machine-readable error codes of the message bus. Every refusal carries one;
 * `retryAfterMs` is set where waiting helps (TOO_MANY_IN_FLIGHT, UI_BUSY, OWNER_REQUIRED, …).
 *
 * @example
 * if (error.code === 'GRANT_REQUIRED') await bus.requestPermission({ app: 'notes', scope: 'call' })
 */
export const CODES = [
  'BAD_REQUEST',
  'UNKNOWN_ACTION',
  'NOT_JSON_COMPATIBLE',
  'PAYLOAD_TOO_LARGE',
  'PAYLOAD_TOO_DEEP',
  'TOO_MANY_IN_FLIGHT',
  'TIMEOUT',
  'CANCELLED',
  'GRANT_REQUIRED',
  'PERMISSION_DENIED',
  'UI_BUSY',
  'SCHEMA_VIOLATION',
  'SCHEMA_REJECTED',
  'VALIDATION_BUDGET',
  'TOOL_NOT_DECLARED',
  'UNKNOWN_TARGET',
  'UNKNOWN_TOOL',
  'ENDPOINT_GONE',
  'TOOL_ERROR',
  'LIMIT_REACHED',
  'NOT_CONNECTED',
  'INTERNAL',
  'ATTACHMENT_TOO_LARGE',
  'ATTACHMENT_BUDGET',
  'ATTACHMENT_REJECTED',
  'DELEGATION_INVALID',
  'DELEGATION_LIMIT',
  'USER_ACTIVATION_REQUIRED',
  'UNAVAILABLE',
  'PROVIDER_ERROR',
  // Agent Mode: a call made for the agent (under an invocation capability), and the owner's consent.
  'OWNER_REQUIRED',
  'SCOPED_CONTEXT_REQUIRED',
  'INVOCATION_INVALID',
  'AGENT_CONSENT_DENIED',
  'AGENT_CONSENT_TIMEOUT',
  'AGENT_CONSENT_LIMIT',
  'AGENT_MODE_REVOKED',
  'AGENT_MODE_LIMIT',
  // Installs (apps.install_offer): the person's installs live on the server, so they need a sign-in.
  'SIGN_IN_REQUIRED',
  'OFFER_URL_INVALID',
  'OFFER_FETCH_FAILED',
  'OFFER_TOO_LARGE',
  'OFFER_INVALID',
  'OFFER_REFUSED',
  'INSTALL_FAILED',
  // App backends (canister.*, backend_calls.*, connections.*, vetkeys.*): the server behind the kernel.
  'CONSENT_DENIED',
  'NOT_FOUND',
  'BACKEND_ERROR',
] as const

export type Code = (typeof CODES)[number]

/** Codes only the kernel observes; they appear in the audit log, never in a reply. */
export const AUDIT_ONLY_CODES = [
  'WINDOW_MESSAGE_IGNORED',
  'UNKNOWN_SOURCE',
  'HANDSHAKE_REPEATED',
  'HANDSHAKE_REJECTED',
  'LATE_PROGRESS',
  'LATE_RESULT',
  'PROGRESS_LIMIT',
  'PROGRESS_REJECTED',
  'MALFORMED_MESSAGE',
  'FLOODED',
] as const

export type AuditCode = Code | (typeof AUDIT_ONLY_CODES)[number]

/** The error half of a response: `{ code, message, retryAfterMs? }`. */
export interface BusErrorShape {
  code: Code
  message: string
  retryAfterMs?: number
}

const known = new Set<string>(CODES)

/** True when `value` is one of {@link CODES}. */
export function isCode(value: unknown): value is Code {
  return typeof value === 'string' && known.has(value)
}

/**
 * A refusal as a value.
 *
 * @example
 * return fail('UNKNOWN_TARGET', `no live endpoint ${target}`)
 */
export function fail(code: Code, message: string, retryAfterMs?: number): BusErrorShape {
  return retryAfterMs === undefined ? { code, message } : { code, message, retryAfterMs }
}
