import { defineConfig } from 'drizzle-kit'

/** The graph index (objects/graph/schema.ts); the ledger under it has its own folder (migrations/ledger-by-seq). */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/graph/schema.ts',
  out: './migrations/graph',
})
