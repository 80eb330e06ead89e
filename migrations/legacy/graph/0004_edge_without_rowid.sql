PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_edge` (
	`source` text NOT NULL,
	`type` text NOT NULL,
	`seq` integer NOT NULL,
	`target` text NOT NULL,
	PRIMARY KEY(`source`, `type`, `seq`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_edge`("source", "type", "seq", "target") SELECT "source", "type", "seq", "target" FROM `edge`;--> statement-breakpoint
DROP TABLE `edge`;--> statement-breakpoint
ALTER TABLE `__new_edge` RENAME TO `edge`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `edge_target` ON `edge` (`target`,`type`,`seq`);