import { defineConfig } from 'drizzle-kit'

/** The ledger's tables with the log keyed by sequence (objects/ledger/schema-by-seq.ts). */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/ledger/schema-by-seq.ts',
  out: './migrations/ledger-by-seq',
})
