/**
 * Durable Object RPC carries an error's message and own fields but not its
 * class. `revive` restores a `NeuronError` on the caller's side, so the one
 * error handler sees the same typed error the object threw.
 */
import { NeuronError } from './errors.ts'

/** The `NeuronError` a remote method threw, or the error unchanged. */
export function revive(error: unknown): unknown {
  if (error instanceof NeuronError || !(error instanceof Error)) return error
  const { code, status, details } = error as Error & { code?: unknown; status?: unknown; details?: unknown }
  if (typeof code !== 'string' || typeof status !== 'number') return error
  return new NeuronError(code, error.message, {
    status,
    ...(details && typeof details === 'object' ? { details: details as Record<string, unknown> } : {}),
    cause: error,
  })
}
