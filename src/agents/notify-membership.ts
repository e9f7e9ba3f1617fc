/**
 * Tells the agents among some entities that their memberships changed, so
 * their objects drop the cached space list they build their prompt from.
 */
import { inArray } from "drizzle-orm";
import type { Database } from "../db/client";
import { agents } from "../db/schema";
import type { AppEnv } from "../env";
import { agentStub } from "./agent-stub";

export async function notifyMembershipChanged(env: AppEnv, database: Database, entityIds: string[]): Promise<void> {
  if (entityIds.length === 0) return;
  const changed = await database.select({ id: agents.id }).from(agents).where(inArray(agents.entityId, entityIds));
  await Promise.all(changed.map((agent) => agentStub(env, agent.id).membershipChanged()));
}
