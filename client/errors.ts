/**
 * The client's one error: what the server answered (`{ error: { code, message,
 * details? } }`) with its HTTP status, or `NETWORK` (status 0) when no answer came.
 */

/**
 * @example
 * try { await session.view() } catch (e) { if (e instanceof NeuronApiError && e.code === 'SESSION_NOT_FOUND') … }
 */
export class NeuronApiError extends Error {
  override name = 'NeuronApiError'
  readonly code: string
  readonly status: number
  readonly details: Record<string, unknown> | undefined

  constructor(code: string, message: string, status: number, details?: Record<string, unknown>, cause?: unknown) {
    super(message, { cause })
    this.code = code
    this.status = status
    this.details = details
  }

  /** Worth retrying with the same message id: no answer, a 5xx, or 429; never a call whose body was a stream (`details.replayable: false`). */
  get retryable(): boolean {
    if (this.details?.replayable === false) return false
    return this.status === 0 || this.status === 429 || this.status >= 500
  }
}

/** The typed error of a non-2xx response. */
export async function errorOf(res: Response): Promise<NeuronApiError> {
  const text = await res.text().catch(() => '')
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string; details?: Record<string, unknown> } }
    return new NeuronApiError(error.code, error.message, res.status, error.details)
  } catch {
    return new NeuronApiError(`HTTP_${res.status}`, text.slice(0, 200) || res.statusText, res.status)
  }
}

/** A failed fetch (refused, reset, DNS) as the typed error. */
export function networkError(cause: unknown): NeuronApiError {
  return new NeuronApiError('NETWORK', `no answer from the server: ${cause instanceof Error ? cause.message : String(cause)}`, 0, undefined, cause)
}
