CREATE TABLE `webhook_dead_letters` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`agent_id` text NOT NULL,
	`subscription_id` text,
	`tool_call_id` text,
	`webhook_id` text NOT NULL,
	`type` text NOT NULL,
	`url` text NOT NULL,
	`body` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text NOT NULL,
	`status` text NOT NULL,
	`redeliveries` integer DEFAULT 0 NOT NULL,
	`first_attempt_at` text NOT NULL,
	`dead_at` text NOT NULL,
	`redelivered_at` text,
	`delivered_at` text
);
--> statement-breakpoint
CREATE INDEX `webhook_dead_letters_dead_idx` ON `webhook_dead_letters` (`dead_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_dead_letters_agent_idx` ON `webhook_dead_letters` (`agent_id`);--> statement-breakpoint
CREATE INDEX `webhook_dead_letters_subscription_idx` ON `webhook_dead_letters` (`subscription_id`);