/** Entity rows: people, services and agents that can be members of spaces. */
import { eq, inArray } from "drizzle-orm";
import { chunked } from "./chunked";
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

/** The entities among `entityIds` that exist (any number of ids: one batch of IN lists that fit D1). */
export async function getEntities(database: Database, entityIds: string[]): Promise<Entity[]> {
  const [first, ...rest] = chunked(entityIds).map((chunk) => database.select().from(entities).where(inArray(entities.id, chunk)));
  if (first === undefined) return [];
  const results = await database.batch([first, ...rest]);
  return results.flat().map(toEntity);
}
