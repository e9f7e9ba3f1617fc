CREATE TABLE `account_connections` (
	`entity_id` text NOT NULL,
	`connection_key` text NOT NULL,
	`sealed_tokens` text,
	`key_id` text,
	`scopes` text NOT NULL,
	`expires_at` text,
	`issuer` text,
	`client_id` text,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text NOT NULL,
	`revoked_at` text,
	PRIMARY KEY(`entity_id`, `connection_key`),
	FOREIGN KEY (`entity_id`) REFERENCES `entities`(`id`) ON UPDATE no action ON DELETE cascade
);
