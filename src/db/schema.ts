/**
 * The D1 schema: the system of record for everything the contract lists.
 * drizzle-kit generates `migrations/` from this file; never edit a migration by hand.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const createdAt = () =>
  text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`);

export const entities = sqliteTable(
  "entities",
  {
    id: text("id").primaryKey(),
    type: text("type", { enum: ["human", "agent", "service"] }).notNull(),
    name: text("name").notNull(),
    externalId: text("external_id"),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("entities_external_id_unique").on(table.externalId)],
);

export const agents = sqliteTable(
  "agents",
  {
    id: text("id").primaryKey(),
    entityId: text("entity_id")
      .notNull()
      .references(() => entities.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    config: text("config", { mode: "json" }).notNull(),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("agents_entity_id_unique").on(table.entityId)],
);

export const spaces = sqliteTable("spaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

export const members = sqliteTable(
  "members",
  {
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    entityId: text("entity_id")
      .notNull()
      .references(() => entities.id, { onDelete: "cascade" }),
    joinedAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.spaceId, table.entityId] }), index("members_entity_idx").on(table.entityId)],
);

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id")
      .notNull()
      .references(() => spaces.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    entityId: text("entity_id").notNull(),
    role: text("role", { enum: ["user", "assistant", "tool", "system"] }).notNull(),
    text: text("text"),
    parts: text("parts", { mode: "json" }),
    mentions: text("mentions", { mode: "json" }),
    status: text("status").notNull(),
    createdAt: createdAt(),
    updatedAt: text("updated_at"),
  },
  (table) => [uniqueIndex("messages_space_seq_unique").on(table.spaceId, table.seq)],
);

/** One cycle of an agent (contract §7): `running` → `completed` | `failed` | `interrupted`. */
export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull(),
    agentEntityId: text("agent_entity_id").notNull(),
    status: text("status", { enum: ["running", "completed", "failed", "interrupted"] }).notNull(),
    trigger: text("trigger", { mode: "json" }).notNull(),
    steps: text("steps", { mode: "json" }),
    toolCalls: text("tool_calls", { mode: "json" }),
    usage: text("usage", { mode: "json" }),
    error: text("error"),
    d1Statements: integer("d1_statements"),
    createdAt: createdAt(),
    finishedAt: text("finished_at"),
  },
  (table) => [index("runs_agent_idx").on(table.agentId, table.createdAt)],
);

/** A tool call waiting for a result from outside (contract §6). */
export const pendingToolCalls = sqliteTable(
  "pending_tool_calls",
  {
    toolCallId: text("tool_call_id").primaryKey(),
    runId: text("run_id").notNull(),
    agentId: text("agent_id").notNull(),
    agentEntityId: text("agent_entity_id").notNull(),
    toolName: text("tool_name").notNull(),
    executionType: text("execution_type").notNull(),
    args: text("args", { mode: "json" }).notNull(),
    status: text("status", { enum: ["waiting", "pending", "resolved", "expired"] }).notNull(),
    result: text("result", { mode: "json" }),
    spaceId: text("space_id"),
    messageId: text("message_id"),
    displayMode: text("display_mode"),
    expiresAt: text("expires_at"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    resolvedAt: text("resolved_at"),
  },
  (table) => [index("pending_tool_calls_agent_idx").on(table.agentId, table.status)],
);

export const goals = sqliteTable(
  "goals",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    description: text("description").notNull(),
    priority: integer("priority").notNull().default(0),
    isLongTerm: integer("is_long_term", { mode: "boolean" }).notNull().default(false),
    isCompleted: integer("is_completed", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("goals_agent_idx").on(table.agentId)],
);

export const memories = sqliteTable(
  "memories",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    value: text("value").notNull(),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("memories_agent_key_unique").on(table.agentId, table.key)],
);

export const plans = sqliteTable(
  "plans",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    instruction: text("instruction").notNull(),
    runAt: text("run_at"),
    cron: text("cron"),
    everySeconds: integer("every_seconds"),
    nextRunAt: text("next_run_at"),
    lastRunAt: text("last_run_at"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("plans_agent_name_unique").on(table.agentId, table.name)],
);
