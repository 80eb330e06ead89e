CREATE TABLE `artifact` (
	`hash` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`kind` text,
	`chunks` integer NOT NULL,
	`time` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `artifact_chunk` (
	`hash` text NOT NULL,
	`idx` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`hash`, `idx`)
);
--> statement-breakpoint
CREATE TABLE `log` (
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
CREATE UNIQUE INDEX `log_id_unique` ON `log` (`id`);--> statement-breakpoint
CREATE INDEX `log_topic_seq` ON `log` (`topic`,`seq`);--> statement-breakpoint
CREATE TABLE `schema_registry` (
	`ref` text PRIMARY KEY NOT NULL,
	`plane` integer NOT NULL,
	`json_schema` text NOT NULL,
	`hash` text NOT NULL,
	`time` integer NOT NULL
);
