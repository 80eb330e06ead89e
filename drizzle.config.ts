import { defineConfig } from 'drizzle-kit'

/** One migrations folder per schema; objects that embed a ledger apply `migrations/ledger`. */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/ledger/schema.ts',
  out: './migrations/ledger',
})
