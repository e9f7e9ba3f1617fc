CREATE TABLE `a2a_messages` (
	`agent_id` text NOT NULL,
	`sender` text NOT NULL,
	`message_id` text NOT NULL,
	`fingerprint` text NOT NULL,
	`context_id` text NOT NULL,
	`posted_message_id` text,
	`posted_at` text,
	`tool_call_id` text,
	`task_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	PRIMARY KEY(`agent_id`, `sender`, `message_id`)
);
--> statement-breakpoint
ALTER TABLE `a2a_push_configs` ADD `sealed_credentials` text;--> statement-breakpoint
ALTER TABLE `a2a_push_configs` ADD `key_id` text;