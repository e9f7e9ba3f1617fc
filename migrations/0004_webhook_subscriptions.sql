CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`agent_id` text,
	`space_id` text,
	`secret` text NOT NULL,
	`description` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_agent_idx` ON `webhook_subscriptions` (`agent_id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_space_idx` ON `webhook_subscriptions` (`space_id`);