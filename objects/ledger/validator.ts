/**
 * The one JSON Schema validator for schemas from outside the code: `@cfworker/json-schema`
 * (draft 2020-12, no eval) with its regular expressions on RE2 (pattern.ts).
 *
 * The library offers no regex option: `pattern`, `patternProperties` and `format: regex` call
 * `new RegExp(source, 'u')` on the global constructor at validation time, and nothing else in
 * it does. So `validate` stands `LinearRegExp` in for the global for exactly the length of one
 * synchronous validation and puts V8's back in `finally`: no other code can run in between
 * (JavaScript runs one thing at a time and nothing here awaits), and regex literals never read
 * the global. Rewriting the schema instead cannot work: `patternProperties` has no equivalent
 * without a regex; forking the library would mean owning its 830-line evaluator. A test pins
 * the coupling (a pattern that stalls V8 for seconds validates in milliseconds through here).
 *
 * The library's own `format: url` check is a backtracking regex that is exponential in the input
 * (measured: 24 characters, 149 ms, doubling per character), so it is replaced with the WHATWG
 * parser. Its other format checks were measured linear (30,000 characters of the worst inputs
 * tried: under 70 ms each).
 */
import { format, type OutputUnit, Validator } from '@cfworker/json-schema'
import { NeuronError } from '../core/errors.ts'
import { LinearRegExp, PatternRefused } from './pattern.ts'

/** `format: url`: an absolute http, https or ftp URL with a host and no whitespace, by the WHATWG parser. */
format.url = (value: string) => {
  if (/\s/.test(value) || !URL.canParse(value)) return false
  const url = new URL(value)
  return ['http:', 'https:', 'ftp:'].includes(url.protocol) && url.hostname !== ''
}

export interface Validation {
  valid: boolean
  errors: OutputUnit[]
}

/**
 * A validator for one schema (already checked by schema-check.ts).
 *
 * @example
 * const validator = new SchemaValidator({ type: 'string', pattern: '^a*a*a*$' })
 * validator.validate('aaab').valid // false, in linear time
 */
export class SchemaValidator {
  readonly #inner: Validator

  /** `shortCircuit`: stop at the first error (the default reports them all). */
  constructor(schema: Record<string, unknown> | boolean, shortCircuit = false) {
    this.#inner = new Validator(schema as never, '2020-12', shortCircuit)
  }

  /** Throws `INVALID_SCHEMA` (400) when the schema holds a pattern the engine refuses (one stored before it was checked). */
  validate(value: unknown): Validation {
    const native = globalThis.RegExp
    globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor
    try {
      return this.#inner.validate(value)
    } catch (error) {
      if (!(error instanceof PatternRefused)) throw error
      throw new NeuronError('INVALID_SCHEMA', `the schema cannot be used: ${error.message}`, { status: 400, details: { pattern: error.pattern.slice(0, 200), reason: error.reason } })
    } finally {
      globalThis.RegExp = native
    }
  }
}

/**
 * Throws `code` with `status` and the first eight issues (`details.issues`) unless `value` is valid:
 * a call's input or output checked against the schema its code declared.
 *
 * @example
 * assertValid(new SchemaValidator({ type: 'string' }), 1, 'INVALID_INPUT', 400, 'input of count does not match the installed interface') // throws INVALID_INPUT
 */
export function assertValid(validator: SchemaValidator, value: unknown, code: string, status: number, what: string): void {
  const result = validator.validate(value)
  if (result.valid) return
  const issues = result.errors.slice(0, 8).map((error) => ({ path: error.instanceLocation, message: error.error }))
  throw new NeuronError(code, `${what}: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`, { status, details: { issues } })
}
