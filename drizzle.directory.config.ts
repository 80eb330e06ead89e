import { defineConfig } from 'drizzle-kit'

/** The DirectoryObject's tables: the ledger's, with the log keyed by sequence (many topics per shard). */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/directory/schema.ts',
  out: './migrations/directory',
})
