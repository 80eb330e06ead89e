/**
 * The kernel's way to the server for app backends: the signed-in person's
 * typed client (client/), never a token an app frame could see. Which
 * installation a request reaches is decided by the caller here, from the
 * endpoint's app identity; nothing an app sends names the person.
 *
 * Server refusals become bus codes an app can act on; the server's own code
 * stays at the front of the message, so nothing is lost in translation.
 *
 * @example
 * const outcome = await onServer(server, ep.app, (app) => app.call('count', {}, { kind: 'query' }))
 * // { ok: { output } } | { error: { code: 'SIGN_IN_REQUIRED' | 'NOT_FOUND' | …, message } }
 */
import { type AppHandle, type AppsClient, NeuronApiError } from '../../../client/index.ts'
import type { Outcome } from '../bus/calls.ts'
import { type BusErrorShape, type Code, fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** The signed-in person's apps client, or undefined while nobody is signed in. */
export type ServerPort = () => AppsClient | undefined

/** The answer of every app-backend action or tool while nobody is signed in. */
export const SIGN_IN_REQUIRED: BusErrorShape = fail('SIGN_IN_REQUIRED', 'app backends need a signed-in person: sign in on the trusted page')

/** Server codes with a closer bus code than BACKEND_ERROR. */
const MAPPED: Record<string, Code> = {
  APP_NOT_INSTALLED: 'NOT_FOUND',
  CONNECTION_NOT_FOUND: 'NOT_FOUND',
  UNKNOWN_METHOD: 'UNKNOWN_TOOL',
  METHOD_KIND_MISMATCH: 'PERMISSION_DENIED',
  INVALID_INPUT: 'SCHEMA_VIOLATION',
  INVALID_REQUEST: 'BAD_REQUEST',
  INVALID_ORIGIN: 'BAD_REQUEST',
  TOO_MANY_GRANTS: 'LIMIT_REACHED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  VETKEYS_NOT_CONFIGURED: 'UNAVAILABLE',
  CREDENTIALS_NOT_CONFIGURED: 'UNAVAILABLE',
}

/**
 * A server failure as a bus refusal: `{ code, message: "<SERVER_CODE>: …" }`.
 *
 * @example
 * busError(new NeuronApiError('APP_NOT_INSTALLED', 'no counter', 404)) // { code: 'NOT_FOUND', message: 'APP_NOT_INSTALLED: no counter' }
 */
export function busError(error: unknown): BusErrorShape {
  if (!(error instanceof NeuronApiError)) return fail('INTERNAL', `the server call failed: ${String(error).slice(0, 200)}`)
  const message = `${error.code}: ${error.message}`.slice(0, LIMITS.maxErrorMessageChars)
  if (error.status === 401) return fail('SIGN_IN_REQUIRED', message)
  if (error.status === 0) return fail('UNAVAILABLE', message)
  if (error.status === 429) return fail('TOO_MANY_IN_FLIGHT', message, LIMITS.retryAfterMs)
  return fail(MAPPED[error.code] ?? 'BACKEND_ERROR', message)
}

/**
 * Runs `work` on the signed-in person's installation of `app`; SIGN_IN_REQUIRED without a person.
 *
 * @example
 * await onServer(server, 'counter', (counter) => counter.view())
 */
export async function onServer<T>(server: ServerPort, app: string, work: (installation: AppHandle) => Promise<T>): Promise<Outcome> {
  const client = server()
  if (!client) return { error: SIGN_IN_REQUIRED }
  try {
    return { ok: await work(client.app(app)) }
  } catch (error) {
    return { error: busError(error) }
  }
}
