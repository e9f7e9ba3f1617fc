/** The discovery lists of spaces and entities, one keyset page at a time (agents: agents/agent-lists.ts). */
import { and, count, eq, inArray } from "drizzle-orm";
import type { Database } from "./client";
import { pageAfter, toPage, type PageCursor } from "./page-cursor";
import { agents, entities, members, spaces } from "./schema";

export type SpaceSummary = { id: string; name: string; createdAt: string; memberCount: number };
export type EntitySummary = { id: string; type: "human" | "agent" | "service"; name: string; externalId?: string; agentId?: string; createdAt: string };
export type Page<T> = { items: T[]; nextCursor: string | null };

async function withMemberCounts(database: Database, rows: { id: string; name: string; createdAt: string }[]): Promise<SpaceSummary[]> {
  if (rows.length === 0) return [];
  const counts = await database
    .select({ spaceId: members.spaceId, members: count() })
    .from(members)
    .where(
      inArray(
        members.spaceId,
        rows.map((row) => row.id),
      ),
    )
    .groupBy(members.spaceId);
  const countOf = new Map(counts.map((row) => [row.spaceId, row.members]));
  return rows.map((row) => ({ ...row, memberCount: countOf.get(row.id) ?? 0 }));
}

/** Every space (`memberOf` unset), or the spaces one entity belongs to. */
export async function listSpacesPage(database: Database, options: { limit: number; cursor?: PageCursor; memberOf?: string }): Promise<Page<SpaceSummary>> {
  const { where, orderBy } = pageAfter(spaces, options.cursor);
  const columns = { id: spaces.id, name: spaces.name, createdAt: spaces.createdAt };
  const rows = options.memberOf
    ? await database
        .select(columns)
        .from(members)
        .innerJoin(spaces, eq(members.spaceId, spaces.id))
        .where(and(eq(members.entityId, options.memberOf), where))
        .orderBy(...orderBy)
        .limit(options.limit + 1)
    : await database
        .select(columns)
        .from(spaces)
        .where(where)
        .orderBy(...orderBy)
        .limit(options.limit + 1);
  const page = toPage(rows, options.limit);
  return { items: await withMemberCounts(database, page.items), nextCursor: page.nextCursor };
}

export async function listEntitiesPage(database: Database, options: { limit: number; cursor?: PageCursor; type?: EntitySummary["type"] }): Promise<Page<EntitySummary>> {
  const { where, orderBy } = pageAfter(entities, options.cursor);
  const rows = await database
    .select({ entity: entities, agentId: agents.id })
    .from(entities)
    .leftJoin(agents, eq(agents.entityId, entities.id))
    .where(and(options.type ? eq(entities.type, options.type) : undefined, where))
    .orderBy(...orderBy)
    .limit(options.limit + 1);
  const page = toPage(
    rows.map((row) => ({ ...row, id: row.entity.id, createdAt: row.entity.createdAt })),
    options.limit,
  );
  return {
    nextCursor: page.nextCursor,
    items: page.items.map(({ entity, agentId }) => {
      const summary: EntitySummary = { id: entity.id, type: entity.type, name: entity.name, createdAt: entity.createdAt };
      if (entity.externalId !== null) summary.externalId = entity.externalId;
      if (agentId) summary.agentId = agentId;
      return summary;
    }),
  };
}

/** An entity with the agent id it belongs to, if it is an agent's. */
export async function getEntityWithAgent(database: Database, entityId: string): Promise<EntitySummary | undefined> {
  const row = await database
    .select({ entity: entities, agentId: agents.id })
    .from(entities)
    .leftJoin(agents, eq(agents.entityId, entities.id))
    .where(eq(entities.id, entityId))
    .get();
  if (!row) return undefined;
  const summary: EntitySummary = { id: row.entity.id, type: row.entity.type, name: row.entity.name, createdAt: row.entity.createdAt };
  if (row.entity.externalId !== null) summary.externalId = row.entity.externalId;
  if (row.agentId) summary.agentId = row.agentId;
  return summary;
}
