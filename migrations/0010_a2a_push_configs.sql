CREATE TABLE `a2a_push_configs` (
	`task_id` text NOT NULL,
	`id` text NOT NULL,
	`agent_id` text NOT NULL,
	`context_id` text NOT NULL,
	`url` text NOT NULL,
	`token` text,
	`auth_scheme` text,
	`auth_credentials` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`task_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `a2a_push_configs_agent_idx` ON `a2a_push_configs` (`agent_id`);