/**
 * A `log` row as the ledger reads it: the columns named once, in one order, and read with
 * `.raw()` as arrays. workerd builds an object per row for a named-column read, which cost about
 * twice the read itself (two small rows: ~43 µs as objects, ~20 µs as arrays), and every
 * history fold and page reads through here.
 */
import { ENVELOPE_V1, type Stored } from './envelope.ts'

/** The columns every read of the log selects, qualified so a join (ancestors, descendants) can use them as they are. */
export const LOG_COLUMNS =
  'log.seq, log.id, log.topic, log.type, log.parent, log.author, log.time, log.schema, log.headers, log.payload, log.payload_ref, log.artifacts'

/** One row of `select ${LOG_COLUMNS} …` read with `.raw()`, in that order. */
export type LogRow = [
  seq: number,
  id: string,
  topic: string,
  type: string,
  parent: string | null,
  author: string,
  time: number,
  schema: string | null,
  headers: string,
  payload: string | null,
  payloadRef: string | null,
  artifacts: string,
]

/**
 * The stored envelope a row holds (its payload inline, as read; a spilled one is hydrated by the ledger).
 *
 * @example
 * const [row] = sql.exec(`select ${LOG_COLUMNS} from log where id = ?`, id).raw().toArray()
 * const envelope = row && fromLogRow(row as LogRow)
 */
export function fromLogRow(row: LogRow): Stored {
  const [seq, id, topic, type, parent, author, time, schema, headers, payload, payloadRef, artifacts] = row
  const envelope: Stored = { v: ENVELOPE_V1, id, seq, topic, type, parent, author, time, headers: JSON.parse(headers), artifacts: JSON.parse(artifacts) }
  if (schema !== null) envelope.schema = schema
  if (payload !== null) envelope.payload = JSON.parse(payload)
  if (payloadRef !== null) envelope.payloadRef = JSON.parse(payloadRef)
  return envelope
}

/** A row's payload size: the inline text's length, or the spilled payload's recorded size. */
export function payloadWeight(row: LogRow): number {
  const payloadRef = row[10]
  if (payloadRef !== null) return (JSON.parse(payloadRef) as { size: number }).size
  return row[9]?.length ?? 0
}
