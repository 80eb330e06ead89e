/**
 * The workspace's own migrations: its index table (schema.ts), for an object that keeps a
 * workspace to compose after the ledger's, whose artifact store holds the blobs.
 *
 * @example
 * const TABLES = tables([LEDGER_TABLES, WORKSPACE_TABLES])
 */
import { moduleMigrations } from '../core/migrations.ts'
import folder from '../../migrations/workspace/migrations.js'

export const WORKSPACE_TABLES = moduleMigrations('workspace', folder)
