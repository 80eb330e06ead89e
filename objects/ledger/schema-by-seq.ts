/**
 * The ledger's tables with the log keyed by `seq` (the rowid) and indexed by `(topic, seq)`: the
 * layout for an object that reads its log by sequence or writes many topics (the graph: its edge
 * index points at envelopes by `seq`; a directory shard: a topic per principal, where the embedded
 * layout, which finds its last sequence by hopping through its topics, would grow with the
 * principals; the standalone LedgerObject, which adds its verb indexes on top).
 * drizzle-kit generates `migrations/ledger-by-seq/` from this file (drizzle.ledger-by-seq.config.ts).
 */
import { logBySeq } from './schema.ts'

export { artifact, artifactChunk, schemaRegistry } from './schema.ts'

export const log = logBySeq('by-topic')
