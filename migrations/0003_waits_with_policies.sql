ALTER TABLE `members` ADD `role` text;--> statement-breakpoint
ALTER TABLE `pending_tool_calls` ADD `kind` text DEFAULT 'call' NOT NULL;--> statement-breakpoint
ALTER TABLE `pending_tool_calls` ADD `answered_by` text;--> statement-breakpoint
ALTER TABLE `pending_tool_calls` ADD `initiator_entity_id` text;--> statement-breakpoint
ALTER TABLE `pending_tool_calls` ADD `escalated_at` text;