-- The standalone ledger serves every query verb over HTTP: by type, by time, and descendants (by
-- parent), each an index over the ledger's log (three more rows per append, six in all).
CREATE INDEX `log_type_seq` ON `log` (`type`,`seq`);--> statement-breakpoint
CREATE INDEX `log_time_seq` ON `log` (`time`,`seq`);--> statement-breakpoint
CREATE INDEX `log_parent` ON `log` (`parent`);
