/** Entity rows: people, services and agents that can be members of spaces. */
import { eq, inArray } from "drizzle-orm";
import type { Database } from "./client";
import { entities } from "./schema";

export type Entity = { id: string; type: "human" | "agent" | "service"; name: string; externalId?: string };

type EntityRow = typeof entities.$inferSelect;

export function toEntity(row: EntityRow): Entity {
  const entity: Entity = { id: row.id, type: row.type, name: row.name };
  if (row.externalId !== null) entity.externalId = row.externalId;
  return entity;
}

export async function getEntity(database: Database, entityId: string): Promise<Entity | undefined> {
  const row = await database.select().from(entities).where(eq(entities.id, entityId)).get();
  return row ? toEntity(row) : undefined;
}

export async function getEntities(database: Database, entityIds: string[]): Promise<Entity[]> {
  if (entityIds.length === 0) return [];
  const rows = await database.select().from(entities).where(inArray(entities.id, entityIds));
  return rows.map(toEntity);
}
