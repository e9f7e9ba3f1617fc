CREATE TABLE `goals` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`description` text NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`is_long_term` integer DEFAULT false NOT NULL,
	`is_completed` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `goals_agent_idx` ON `goals` (`agent_id`);--> statement-breakpoint
CREATE TABLE `memories` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memories_agent_key_unique` ON `memories` (`agent_id`,`key`);--> statement-breakpoint
CREATE TABLE `pending_tool_calls` (
	`tool_call_id` text PRIMARY KEY NOT NULL,
	`run_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`agent_entity_id` text NOT NULL,
	`tool_name` text NOT NULL,
	`execution_type` text NOT NULL,
	`args` text NOT NULL,
	`status` text NOT NULL,
	`result` text,
	`space_id` text,
	`message_id` text,
	`display_mode` text,
	`expires_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text NOT NULL,
	`resolved_at` text
);
--> statement-breakpoint
CREATE INDEX `pending_tool_calls_agent_idx` ON `pending_tool_calls` (`agent_id`,`status`);--> statement-breakpoint
CREATE TABLE `plans` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`name` text NOT NULL,
	`instruction` text NOT NULL,
	`run_at` text,
	`cron` text,
	`every_seconds` integer,
	`next_run_at` text,
	`last_run_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `plans_agent_name_unique` ON `plans` (`agent_id`,`name`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`agent_entity_id` text NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`steps` text,
	`tool_calls` text,
	`usage` text,
	`error` text,
	`d1_statements` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `runs_agent_idx` ON `runs` (`agent_id`,`created_at`);