/**
 * An agent has two ids: its agent id (`agt_…`, for the agent routes) and its
 * entity id (`ent_…`, for spaces and messages). Where an entity is expected,
 * an agent id is accepted too and read as the agent's entity id, so nobody
 * has to remember which of the two a route wants.
 *
 * Only ids with the agent prefix cost a query: the common path (entity ids)
 * adds no D1 round trip.
 */
import { inArray } from "drizzle-orm";
import { ApiError } from "../errors";
import type { Database } from "./client";
import { agents } from "./schema";

const agentIdPrefix = "agt_";

export function isAgentId(id: string): boolean {
  return id.startsWith(agentIdPrefix);
}

/**
 * Maps each id to an entity id: agent ids to their agent's entity id, every
 * other id to itself. An agent id that names no agent is a 404 that says so.
 */
export async function resolveEntityIds(database: Database, ids: readonly string[]): Promise<string[]> {
  const agentIds = [...new Set(ids.filter(isAgentId))];
  if (agentIds.length === 0) return [...ids];
  const rows = await database.select({ id: agents.id, entityId: agents.entityId }).from(agents).where(inArray(agents.id, agentIds));
  const entityIdOf = new Map(rows.map((row) => [row.id, row.entityId]));
  const unknown = agentIds.filter((id) => !entityIdOf.has(id));
  if (unknown.length > 0) {
    throw new ApiError(404, "not_found", `No agent has the id ${unknown.map((id) => `"${id}"`).join(", ")} (agent ids start with agt_; entity ids with ent_)`);
  }
  return ids.map((id) => entityIdOf.get(id) ?? id);
}

/** One id: see `resolveEntityIds`. */
export async function resolveEntityId(database: Database, id: string): Promise<string> {
  return isAgentId(id) ? (await resolveEntityIds(database, [id]))[0] : id;
}
