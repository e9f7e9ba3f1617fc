/**
 * Tells the agents among some entities that their memberships changed, so
 * their objects drop the cached space list they build their prompt from.
 */
import { inArray } from "drizzle-orm";
import { chunked } from "../db/chunked";
import type { Database } from "../db/client";
import { agents } from "../db/schema";
import type { AppEnv } from "../env";
import { agentStub } from "./agent-stub";

export async function notifyMembershipChanged(env: AppEnv, database: Database, entityIds: string[]): Promise<void> {
  const [first, ...rest] = chunked(entityIds).map((chunk) => database.select({ id: agents.id }).from(agents).where(inArray(agents.entityId, chunk)));
  if (first === undefined) return;
  const changed = (await database.batch([first, ...rest])).flat();
  await Promise.all(changed.map((agent) => agentStub(env, agent.id).membershipChanged()));
}
