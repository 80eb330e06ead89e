/**
 * The one typed error of the backend. Every failure a caller can act on is a
 * `NeuronError` with a machine-readable `code`, the HTTP `status` it maps to,
 * optional structured `details`, and the underlying `cause`.
 *
 * The worker's single `onError` turns it into `{ error: { code, message, details? } }`.
 *
 * @example
 * throw new NeuronError('UNKNOWN_SCHEMA', `no schema registered as ${ref}`, { status: 400, details: { ref } })
 */
export class NeuronError extends Error {
  override name = 'NeuronError'
  readonly code: string
  readonly status: number
  readonly details: Record<string, unknown> | undefined

  constructor(
    code: string,
    message: string,
    options: { status?: number; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause })
    this.code = code
    this.status = options.status ?? 400
    this.details = options.details
  }

  /** The wire shape, also what survives a Durable Object RPC boundary (see `revive`). */
  toJSON(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.details === undefined ? {} : { details: this.details }),
    }
  }
}

/** The JSON body of every error response. */
export interface ErrorBody {
  code: string
  message: string
  details?: Record<string, unknown>
}

/** A value that is not JSON-compatible (cycle, class instance, undefined, NaN, function, ...). */
export class NotJsonCompatibleError extends NeuronError {
  override name = 'NotJsonCompatibleError'
  constructor(path: string, reason: string) {
    super('NOT_JSON_COMPATIBLE', `value at ${path} is not JSON-compatible: ${reason}`, {
      status: 400,
      details: { path, reason },
    })
  }
}

/** A payload or header value that does not satisfy its registered schema. */
export class SchemaViolationError extends NeuronError {
  override name = 'SchemaViolationError'
  constructor(ref: string, errors: { path: string; message: string }[]) {
    super('SCHEMA_VIOLATION', `value does not satisfy schema ${ref}`, {
      status: 400,
      details: { ref, errors },
    })
  }
}
