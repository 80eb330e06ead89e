import { defineConfig } from 'drizzle-kit'

/** The GraphObject's tables: its own ledger plus the graph index (one migrations folder per object class). */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/graph/schema.ts',
  out: './migrations/graph',
})
