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
import type { Stored } from '../ledger/envelope.ts'
import type { Ledger } from '../ledger/ledger.ts'
import { EVENT, isEvent } from './events.ts'
import { emptySession, reduceSession, type SessionState } from './projection.ts'
import type { Receipts } from './receipts.ts'

/** Events between two snapshots: a wake folds at most this many (plus one page). */
export const SNAPSHOT_EVERY = 256

/** Bump whenever `SessionState` changes shape: older snapshots are then ignored and refolded. */
export const SNAPSHOT_VERSION = 2

const KEY = 'session.snapshot'

interface Snapshot {
  v: number
  state: SessionState
}

/**
 * The session state on wake: the stored snapshot, then the events after it.
 *
 * @example
 * this.state = restore(ctx.storage.kv, ledger, topic, receipts)
 */
export function restore(kv: SyncKvStorage, ledger: Ledger, topic: string, receipts: Receipts): SessionState {
  const snapshot = kv.get<Snapshot>(KEY)
  if (snapshot?.v === SNAPSHOT_VERSION) return ledger.fold(topic, reduceSession, snapshot.state, { state: snapshot.state, cursor: snapshot.state.lastSeq }).state
  const reindex = (state: SessionState, envelope: Stored): SessionState => {
    if (isEvent(envelope, EVENT.admitted)) {
      const { messageId, digest } = envelope.payload
      receipts.put(messageId, { seq: envelope.seq, digest })
    }
    return reduceSession(state, envelope)
  }
  const state = ledger.fold(topic, reindex, emptySession()).state
  if (state.exists) kv.put(KEY, { v: SNAPSHOT_VERSION, state } satisfies Snapshot)
  return state
}

/** Stores the state when a snapshot is due; call right after folding a new event in. */
export function snapshotIfDue(kv: SyncKvStorage, state: SessionState): void {
  if (state.counts.events % SNAPSHOT_EVERY === 0) kv.put(KEY, { v: SNAPSHOT_VERSION, state } satisfies Snapshot)
}
