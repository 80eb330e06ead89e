import { defineConfig } from 'drizzle-kit'

/** The workspace's index table (objects/workspace/schema.ts), applied by an object that keeps a workspace. */
export default defineConfig({
  dialect: 'sqlite',
  driver: 'durable-sqlite',
  schema: './objects/workspace/schema.ts',
  out: './migrations/workspace',
})
