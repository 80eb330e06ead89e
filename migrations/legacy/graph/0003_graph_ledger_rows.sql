PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_log` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`topic` text NOT NULL,
	`type` text NOT NULL,
	`parent` text,
	`author` text NOT NULL,
	`time` integer NOT NULL,
	`schema` text,
	`headers` text NOT NULL,
	`payload` text,
	`payload_ref` text,
	`artifacts` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_log`("seq", "id", "topic", "type", "parent", "author", "time", "schema", "headers", "payload", "payload_ref", "artifacts") SELECT "seq", "id", "topic", "type", "parent", "author", "time", "schema", "headers", "payload", "payload_ref", "artifacts" FROM `log`;--> statement-breakpoint
DROP TABLE `log`;--> statement-breakpoint
ALTER TABLE `__new_log` RENAME TO `log`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `log_id_unique` ON `log` (`id`);--> statement-breakpoint
CREATE INDEX `log_topic_seq` ON `log` (`topic`,`seq`);