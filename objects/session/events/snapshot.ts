/**
 * The session projection, kept from one wake to the next without refolding
 * the whole log: every `SNAPSHOT_EVERY` events the folded state is stored with
 * the sequence it covers, and a wake folds only the events after it. The
 * snapshot is a memo of the fold, never a truth of its own: it is written in
 * the same synchronous step as the event it covers, carries a version, and a
 * missing or older-version snapshot simply means a fold from the start.
 *
 * That first full fold also rebuilds the admission index (receipts) for
 * sessions created before it existed; putting an entry twice is harmless.
 */
import type { Snapshots } from '../../core/journal.ts'
import { EVENT, isEvent } from './events.ts'
import { reduceSession, type SessionState } from './projection.ts'
import type { Receipts } from '../intake/receipts.ts'

/** Events between two snapshots: a wake folds at most this many (plus one page). */
export const SNAPSHOT_EVERY = 256

/** Bump whenever `SessionState` changes shape: older snapshots are then ignored and refolded. */
export const SNAPSHOT_VERSION = 4

const KEY = 'session.snapshot'

interface Snapshot {
  v: number
  state: SessionState
}

/**
 * The session's snapshot hook for its journal (objects/core/journal.ts): a wake folds from the stored
 * snapshot, or from the start (re-indexing receipts as it goes) when there is none of this version.
 *
 * @example
 * const journal = new Journal({ storage, topic, author, reduce: reduceSession, initial: emptySession, snapshots: sessionSnapshots(kv, receipts) })
 */
export function sessionSnapshots(kv: SyncKvStorage, receipts: Receipts): Snapshots<SessionState> {
  return {
    load() {
      const snapshot = kv.get<Snapshot>(KEY)
      return snapshot?.v === SNAPSHOT_VERSION ? { state: snapshot.state, cursor: snapshot.state.lastSeq } : undefined
    },
    keep(state, rebuilt) {
      // A full fold stores what it built; after that, one snapshot every `SNAPSHOT_EVERY` events.
      if (rebuilt ? state.exists : state.counts.events % SNAPSHOT_EVERY === 0) kv.put(KEY, { v: SNAPSHOT_VERSION, state } satisfies Snapshot)
    },
    replay(state, envelope) {
      if (isEvent(envelope, EVENT.admitted)) {
        const { messageId, digest } = envelope.payload
        receipts.put(messageId, { seq: envelope.seq, digest })
      }
      return reduceSession(state, envelope)
    },
  }
}
