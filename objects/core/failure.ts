/**
 * One rule for turning a failure into an answer, used at every edge of the
 * backend: the worker's `onError`, a Durable Object's stream `fetch` and its
 * WebSocket handler, and its RPC methods (objects/core/rpc.ts).
 *
 * - A `NeuronError` is expected: it answers with its own status and body and is
 *   not logged (the audit line already records its code).
 * - Anything else is a bug: logged once, with its stack and where it happened,
 *   and answered 500 `INTERNAL` without details.
 */
import { type ErrorBody, NeuronError } from './errors.ts'

/** A failure as it is answered: the HTTP status and the `error` body. */
export interface Failure {
  status: number
  error: ErrorBody
}

/**
 * @example
 * const { status, error } = failureOf(thrown, 'SessionObject.fetch')
 */
export function failureOf(thrown: unknown, where: string): Failure {
  const known = revive(thrown)
  if (known instanceof NeuronError) return { status: known.status, error: known.toJSON() }
  console.error(`unexpected error in ${where}:`, thrown instanceof Error ? (thrown.stack ?? String(thrown)) : thrown)
  return { status: 500, error: { code: 'INTERNAL', message: 'internal error' } }
}

/**
 * The HTTP response for a failure: `{ error: { code, message, details? } }`.
 *
 * @example
 * catch (thrown) { return failureResponse(thrown, 'SessionObject.fetch') }
 */
export function failureResponse(thrown: unknown, where: string): Response {
  const { status, error } = failureOf(thrown, where)
  return Response.json({ error }, { status })
}

/**
 * What still arrives as a thrown error from another object (a method not listed in
 * `answerFailures`): RPC keeps an error's message and own fields but not its class.
 */
function revive(error: unknown): unknown {
  if (error instanceof NeuronError || !(error instanceof Error)) return error
  const { code, status, details } = error as Error & { code?: unknown; status?: unknown; details?: unknown }
  if (typeof code !== 'string' || typeof status !== 'number') return error
  return new NeuronError(code, error.message, {
    status,
    ...(details && typeof details === 'object' ? { details: details as Record<string, unknown> } : {}),
    cause: error,
  })
}
