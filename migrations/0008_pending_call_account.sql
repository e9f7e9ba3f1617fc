ALTER TABLE `pending_tool_calls` ADD `account_key` text;--> statement-breakpoint
CREATE INDEX `pending_tool_calls_account_idx` ON `pending_tool_calls` (`account_key`,`initiator_entity_id`);