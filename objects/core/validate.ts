import { z } from 'zod'
import { NeuronError } from './errors.ts'

/**
 * The shape of every client-chosen name: session ids, message ids, ledger names.
 * 1–128 characters of address segments (`[A-Za-z0-9_:-]`, joined by single dots), so
 * every address derived from a name (`session.<id>`, `session.<id>.notes`) is valid:
 * `a.`, `.a` and `a..b` are refused here, at the edge, not later by the ledger.
 *
 * @example
 * Identifier.parse('demo-1') // 'demo-1'
 * Identifier.parse('a.')     // throws
 */
export const Identifier = z
  .string()
  .max(128, 'must be at most 128 characters')
  // The same rule as `isAddress`, spelled as a regex so the OpenAPI document shows it.
  .regex(/^[A-Za-z0-9_:-]+(?:\.[A-Za-z0-9_:-]+)*$/, 'must be segments of [A-Za-z0-9_:-] joined by single dots')

/** One failing field of a validation: a dotted path and what is wrong with it. */
export interface FieldIssue {
  path: string
  message: string
}

/**
 * Parses `value` with a zod schema or throws a `NeuronError` carrying every
 * failing field, so bad input always gets a machine-readable code and a list
 * of what to fix.
 *
 * @example
 * const draft = parseOrThrow(EnvelopeDraftSchema, body, 'INVALID_ENVELOPE')
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, code: string, status = 400): z.output<S> {
  const result = schema.safeParse(value)
  if (result.success) return result.data
  throw new NeuronError(code, `invalid input: ${result.error.issues.map(describe).join('; ')}`, {
    status,
    details: { issues: result.error.issues.map(toFieldIssue) },
  })
}

function toFieldIssue(issue: z.core.$ZodIssue): FieldIssue {
  return { path: issue.path.map(String).join('.') || '$', message: issue.message }
}

function describe(issue: z.core.$ZodIssue): string {
  const { path, message } = toFieldIssue(issue)
  return `${path}: ${message}`
}
