/**
 * The code a refusal carries: what the table tests of pure decisions compare.
 */
import { NeuronError } from '../../objects/core/errors.ts'

/**
 * The `NeuronError` code `run` threw, or null when it returned; any other error is thrown on.
 *
 * @example
 * expect(codeOf(() => normalizePath('../x'))).toBe('PATH_ESCAPE')
 */
export function codeOf(run: () => unknown): string | null {
  try {
    run()
    return null
  } catch (error) {
    if (error instanceof NeuronError) return error.code
    throw error
  }
}
