/** Space and membership rows. */
import { and, eq } from "drizzle-orm";
import { chunked } from "./chunked";
import type { Database } from "./client";
import { agents, entities, members, spaces } from "./schema";

export type Space = { id: string; name: string; createdAt: string };

export async function getSpace(database: Database, spaceId: string): Promise<Space | undefined> {
  return database.select().from(spaces).where(eq(spaces.id, spaceId)).get();
}

/**
 * Creates a space with its first members in one batch (all or nothing):
 * multi-row inserts of as many members as fit one D1 statement each, so a
 * thousand members are about twenty statements.
 */
/**
 * A space and its members, in one batch. Conflicts do nothing, so a retry
 * racing the first request (the same id, from an Idempotency-Key) writes
 * nothing twice; false when the space already existed.
 */
export async function insertSpaceWithMembers(database: Database, space: { id: string; name: string }, memberIds: string[]): Promise<boolean> {
  const memberInserts = chunked(memberIds, { parametersPerItem: 2 }).map((chunk) =>
    database
      .insert(members)
      .values(chunk.map((entityId) => ({ spaceId: space.id, entityId })))
      .onConflictDoNothing(),
  );
  const [created] = await database.batch([database.insert(spaces).values(space).onConflictDoNothing({ target: spaces.id }).returning({ id: spaces.id }), ...memberInserts]);
  return created.length > 0;
}

export async function isMember(database: Database, spaceId: string, entityId: string): Promise<boolean> {
  const row = await database
    .select({ entityId: members.entityId })
    .from(members)
    .where(and(eq(members.spaceId, spaceId), eq(members.entityId, entityId)))
    .get();
  return row !== undefined;
}

export async function listMemberIds(database: Database, spaceId: string): Promise<string[]> {
  const rows = await database.select({ entityId: members.entityId }).from(members).where(eq(members.spaceId, spaceId));
  return rows.map((row) => row.entityId);
}

/** The spaces an entity belongs to, with names (for an agent's system prompt). */
export async function listSpacesOfEntity(database: Database, entityId: string): Promise<Space[]> {
  return database
    .select({ id: spaces.id, name: spaces.name, createdAt: spaces.createdAt })
    .from(members)
    .innerJoin(spaces, eq(members.spaceId, spaces.id))
    .where(eq(members.entityId, entityId));
}

/** The agents that are members of a space: who a message may wake. */
export async function listAgentMembers(database: Database, spaceId: string): Promise<{ agentId: string; entityId: string }[]> {
  return database
    .select({ agentId: agents.id, entityId: agents.entityId })
    .from(members)
    .innerJoin(agents, eq(members.entityId, agents.entityId))
    .where(eq(members.spaceId, spaceId));
}

/**
 * What posting a message needs to know, in one D1 round trip: the space, the
 * speaker, the space's member ids, and which members are agents (who may wake).
 */
export async function loadMessageContext(database: Database, spaceId: string, entityId: string) {
  const [spaceRows, speakerRows, memberRows] = await database.batch([
    database.select().from(spaces).where(eq(spaces.id, spaceId)).limit(1),
    database.select().from(entities).where(eq(entities.id, entityId)).limit(1),
    database.select({ entityId: members.entityId, agentId: agents.id }).from(members).leftJoin(agents, eq(members.entityId, agents.entityId)).where(eq(members.spaceId, spaceId)),
  ]);
  return {
    space: spaceRows[0],
    speaker: speakerRows[0],
    memberIds: memberRows.map((row) => row.entityId),
    agentMembers: memberRows.flatMap((row) => (row.agentId ? [{ agentId: row.agentId, entityId: row.entityId }] : [])),
  };
}
