-- The workspace index: one row per change, clustered by (path, seq) in a WITHOUT ROWID table (added
-- by hand: drizzle cannot say it) with no other index, so a change writes one billed row.
CREATE TABLE `workspace_file` (
	`path` text NOT NULL,
	`seq` integer NOT NULL,
	`content` text,
	`size` integer NOT NULL,
	PRIMARY KEY(`path`, `seq`)
) WITHOUT ROWID;
