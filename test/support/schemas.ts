/**
 * Holding written events to their registered payload schemas: what a schema registry refuses of
 * a list of events, as plain rows a test compares with `[]`.
 */
import type { Stored } from '../../objects/ledger/envelope.ts'
import type { Ledger } from '../../objects/ledger/ledger.ts'

/**
 * What the registry refuses of `written`: a type outside `types`, or a payload off its schema.
 *
 * @example
 * expect(refusals(ledger, await events(id), EVENT_TYPES, (type) => `${type}@1`)).toEqual([])
 */
export function refusals(ledger: Ledger, written: Stored[], types: ReadonlySet<string>, ref: (type: string) => string) {
  const refused: { type: string; seq: number; error: string }[] = []
  for (const event of written) {
    if (!types.has(event.type)) {
      refused.push({ type: event.type, seq: event.seq, error: 'no schema: not a type of the vocabulary' })
      continue
    }
    try {
      ledger.schemas.validate(ref(event.type), event.payload)
    } catch (error) {
      refused.push({ type: event.type, seq: event.seq, error: JSON.stringify((error as { details?: unknown }).details ?? String(error)) })
    }
  }
  return refused
}
