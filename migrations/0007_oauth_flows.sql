CREATE TABLE `oauth_flows` (
	`id` text PRIMARY KEY NOT NULL,
	`entity_id` text NOT NULL,
	`connection_key` text NOT NULL,
	`service_name` text,
	`state_hash` text NOT NULL,
	`start_token_hash` text,
	`browser_hash` text,
	`sealed_secrets` text NOT NULL,
	`key_id` text NOT NULL,
	`server` text NOT NULL,
	`client_id` text NOT NULL,
	`resource` text,
	`scopes` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`agent_id` text,
	`tool_call_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`started_at` text,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`entity_id`) REFERENCES `entities`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_flows_state_idx` ON `oauth_flows` (`state_hash`);--> statement-breakpoint
CREATE INDEX `oauth_flows_expires_idx` ON `oauth_flows` (`expires_at`);--> statement-breakpoint
CREATE INDEX `oauth_flows_entity_idx` ON `oauth_flows` (`entity_id`);