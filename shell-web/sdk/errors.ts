/**
 * Every failure the bus reports to an app is a BusError with a machine-readable
 * `code` (see docs/shell.md) and, for TOO_MANY_IN_FLIGHT, `retryAfterMs`.
 *
 * @example
 * try { await callTool(call) } catch (e) { if (e instanceof BusError && e.code === 'GRANT_REQUIRED') askForAccess() }
 */
import type { BusErrorShape, Code } from '../protocol/codes.ts'

export class BusError extends Error {
  readonly code: Code
  readonly retryAfterMs?: number

  constructor(code: Code, message: string, retryAfterMs?: number) {
    super(message)
    this.name = 'BusError'
    this.code = code
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs
  }

  static from(shape: BusErrorShape): BusError {
    return new BusError(shape.code, shape.message, shape.retryAfterMs)
  }

  toJSON(): BusErrorShape {
    return this.retryAfterMs === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, retryAfterMs: this.retryAfterMs }
  }
}
