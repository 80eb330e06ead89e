-- The edge index clustered by (source, type, seq) in a WITHOUT ROWID table (added by hand: drizzle
-- cannot say it): the row is its own source index, so an edge writes two rows, not three.
CREATE TABLE `edge` (
	`source` text NOT NULL,
	`type` text NOT NULL,
	`seq` integer NOT NULL,
	`target` text NOT NULL,
	PRIMARY KEY(`source`, `type`, `seq`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `edge_target` ON `edge` (`target`,`type`,`seq`);--> statement-breakpoint
CREATE TABLE `retired` (
	`edge` integer PRIMARY KEY NOT NULL,
	`by` integer NOT NULL
);
