/**
 * The standalone LedgerObject's tables: the ledger's, with the log indexed for every query
 * verb it serves over HTTP (by topic, by type, by time, descendants). Objects that embed a
 * ledger for their own use read it by topic and id only, and skip these three indexes,
 * because every index entry is a billed row on every append.
 * drizzle-kit generates `migrations/ledger-object/` from this file (drizzle.ledger-object.config.ts).
 */
import { logBySeq } from '../ledger/schema.ts'

export { artifact, artifactChunk, schemaRegistry } from '../ledger/schema.ts'

export const log = logBySeq('every verb')
