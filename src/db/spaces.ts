/** Space and membership rows. */
import { and, eq, sql } from "drizzle-orm";
import { chunked } from "./chunked";
import type { Database } from "./client";
import { agents, entities, members, spaces } from "./schema";

export type Space = { id: string; name: string; createdAt: string };

/** A space as its readers see it: with the metadata its members keep. */
export type SpaceRecord = Space & { metadata: Record<string, unknown> };

export async function getSpace(database: Database, spaceId: string): Promise<SpaceRecord | undefined> {
  return database.select().from(spaces).where(eq(spaces.id, spaceId)).get();
}

/** A space's metadata may hold this many keys at most, and this many bytes as JSON. */
export const spaceMetadataLimits = { keys: 50, bytes: 8_192 };

/**
 * Applies a JSON merge patch (a key set to null is removed, objects merge) to
 * a space's metadata in one statement, so two writers never lose each other's
 * keys; nothing is written when the result would pass the limits.
 */
export async function patchSpaceMetadata(
  database: Database,
  spaceId: string,
  patch: Record<string, unknown>,
): Promise<{ ok: true; metadata: Record<string, unknown> } | { ok: false; reason: "not_found" | "too_large" }> {
  const patched = sql`json_patch(${spaces.metadata}, ${JSON.stringify(patch)})`;
  const row = await database
    .update(spaces)
    .set({ metadata: sql`${patched}` })
    .where(
      and(
        eq(spaces.id, spaceId),
        sql`length(CAST(${patched} AS BLOB)) <= ${spaceMetadataLimits.bytes}`,
        sql`(SELECT count(*) FROM json_each(${patched})) <= ${spaceMetadataLimits.keys}`,
      ),
    )
    .returning({ metadata: spaces.metadata })
    .get();
  if (row) return { ok: true, metadata: row.metadata };
  return (await getSpace(database, spaceId)) ? { ok: false, reason: "too_large" } : { ok: false, reason: "not_found" };
}

export type SpaceMember = { id: string; type: "human" | "agent" | "service"; name: string; agentId?: string; role?: string; joinedAt: string };

/** Who is in a space, with names and types, oldest member first (an agent's entry carries its agent id). */
export async function listSpaceMembers(database: Database, spaceId: string): Promise<SpaceMember[]> {
  const rows = await database
    .select({ id: entities.id, type: entities.type, name: entities.name, agentId: agents.id, role: members.role, joinedAt: members.joinedAt })
    .from(members)
    .innerJoin(entities, eq(members.entityId, entities.id))
    .leftJoin(agents, eq(agents.entityId, entities.id))
    .where(eq(members.spaceId, spaceId))
    .orderBy(members.joinedAt, entities.id);
  return rows.map(({ agentId, role, ...member }) => ({ ...member, ...(agentId && { agentId }), ...(role && { role }) }));
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
export async function insertSpaceWithMembers(database: Database, space: { id: string; name: string; metadata?: Record<string, unknown> }, memberIds: string[]): Promise<boolean> {
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
