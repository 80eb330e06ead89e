/**
 * The standalone LedgerObject's own migrations (`migrations/ledger-object/`): the log indexes for
 * the query verbs it serves over HTTP (by type, by time, descendants) on top of the ledger's
 * tables keyed by sequence (objects/ledger/schema-by-seq.ts). Objects that embed a ledger for their
 * own use read it by topic and id only and skip these three indexes, because every index entry is
 * a billed row on every append. The log is the ledger's table, so drizzle cannot declare indexes on
 * it here: the migration that builds them is hand-written (`drizzle-kit generate --custom --config
 * drizzle.ledger-object.config.ts`), and this file declares no table of its own.
 */
export {}
