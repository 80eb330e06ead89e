/**
 * The DirectoryObject's tables: the ledger's, with the log keyed by `seq` (the rowid) and
 * indexed by `(topic, seq)`. A directory shard writes one topic per principal it lists, so
 * the embedded ledger's layout, which finds its last sequence by hopping through its topics,
 * would grow with the principals; here the last sequence is one rowid probe.
 * drizzle-kit generates `migrations/directory/` from this file (drizzle.directory.config.ts).
 */
import { logBySeq } from '../ledger/schema.ts'

export { artifact, artifactChunk, schemaRegistry } from '../ledger/schema.ts'

export const log = logBySeq('by-topic')
