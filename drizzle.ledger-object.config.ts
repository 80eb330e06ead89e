import { defineConfig } from 'drizzle-kit'

/** The standalone LedgerObject's own migrations: the log's verb indexes, hand-written (objects/ledger-object/schema.ts). */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/ledger-object/schema.ts',
  out: './migrations/ledger-object',
})
