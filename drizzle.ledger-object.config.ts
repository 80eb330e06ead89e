import { defineConfig } from 'drizzle-kit'

/** The standalone LedgerObject's tables: the ledger's, with an index for every query verb. */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/ledger-object/schema.ts',
  out: './migrations/ledger-object',
})
