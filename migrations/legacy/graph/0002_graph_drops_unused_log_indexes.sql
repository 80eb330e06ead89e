-- A graph reads its log only by topic (a node and its outgoing edges) and by id (content-id
-- dedupe, edge lookups); its own `edge` table serves every other query. The ledger's by-type,
-- by-time and by-parent indexes would cost three rows on every append and serve nothing here.
DROP INDEX `log_type_seq`;--> statement-breakpoint
DROP INDEX `log_time_seq`;--> statement-breakpoint
DROP INDEX `log_parent`;
