/**
 * The 404 for an unknown agent id that says which id was meant when the
 * caller passed the agent's entity id (`ent_…`) where its agent id (`agt_…`)
 * belongs.
 */
import { eq } from "drizzle-orm";
import { ApiError, notFound } from "../errors";
import type { Database } from "./client";
import { agents } from "./schema";

export async function agentNotFound(database: Database, agentId: string): Promise<ApiError> {
  const owner = await database.select({ id: agents.id }).from(agents).where(eq(agents.entityId, agentId)).get();
  if (!owner) return notFound("Agent", agentId);
  return new ApiError(404, "not_found", `Agent "${agentId}" not found: that is the entity id of agent "${owner.id}"; agent routes take the agent id`);
}
