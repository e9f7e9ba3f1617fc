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
