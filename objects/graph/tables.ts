/**
 * The graph's own migrations: its index tables (schema.ts) and the FTS5 table drizzle cannot
 * describe (a custom migration). A GraphObject composes them after the ledger's (graph-object.ts).
 *
 * @example
 * const TABLES = tables([LEDGER_BY_SEQ_TABLES, GRAPH_TABLES])
 */
import { moduleMigrations } from '../core/migrations.ts'
import folder from '../../migrations/graph/migrations.js'

export const GRAPH_TABLES = moduleMigrations('graph', folder)
