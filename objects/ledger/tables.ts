/**
 * The ledger's migrations, in the two layouts of its log it offers (schema.ts): embedded, the log
 * clustered by `(topic, seq)` for an object that holds a few topics of its own (session, meter,
 * config, orchestration, the app objects); and keyed by `seq` for one that reads by sequence or
 * writes many topics (the graph, a directory shard, the standalone LedgerObject). An object class
 * composes one of them with its other modules' (objects/core/migrations.ts).
 *
 * @example
 * const TABLES = tables([LEDGER_TABLES])
 */
import { moduleMigrations } from '../core/migrations.ts'
import embedded from '../../migrations/ledger/migrations.js'
import bySeq from '../../migrations/ledger-by-seq/migrations.js'

/** The embedded log (schema.ts `log`): drizzle-kit output of drizzle.config.ts. */
export const LEDGER_TABLES = moduleMigrations('ledger', embedded)

/** The log keyed by sequence (schema-by-seq.ts): drizzle-kit output of drizzle.ledger-by-seq.config.ts. */
export const LEDGER_BY_SEQ_TABLES = moduleMigrations('ledger-by-seq', bySeq)
