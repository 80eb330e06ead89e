/**
 * The admission index: message id → the sequence and digest of its `admitted`
 * event, so an exact retry gets its receipt back and a conflicting one is
 * refused without the session keeping every message id it ever saw in memory.
 *
 * It is an index of the log, not a second truth: each entry is written in the
 * same synchronous step as its `admitted` event (so both commit or neither),
 * and a session whose index predates it is rebuilt from the log on wake.
 * One storage row per admitted prompt.
 */
import type { Admission } from '../events/projection.ts'

const PREFIX = 'receipt:'

/**
 * @example
 * const receipts = new Receipts(ctx.storage.kv)
 * receipts.put('m1', { seq: 7, digest })
 * receipts.get('m1') // { seq: 7, digest }
 */
export class Receipts {
  constructor(private readonly kv: SyncKvStorage) {}

  get(messageId: string): Admission | undefined {
    const entry = this.kv.get<[number, string]>(PREFIX + messageId)
    return entry && { seq: entry[0], digest: entry[1] }
  }

  put(messageId: string, admission: Admission): void {
    this.kv.put(PREFIX + messageId, [admission.seq, admission.digest])
  }
}
