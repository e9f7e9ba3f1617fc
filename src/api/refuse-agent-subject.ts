/**
 * Agents speak only through their own cycles: a JWT whose `sub` is an agent's
 * entity is refused (403) on every route, so no token can post as an agent
 * (role `assistant`), answer its tool calls or read its spaces in its name.
 * An entity's type never changes, so entities known not to be agents are
 * remembered per isolate (bounded) to spare a D1 read on every request.
 */
import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { entities } from "../db/schema";
import { forbidden } from "../errors";

const maxRemembered = 10_000;
const knownNotAgents = new Set<string>();

export async function refuseAgentSubject(database: Database, entityId: string): Promise<void> {
  if (knownNotAgents.has(entityId)) return;
  const entity = await database.select({ type: entities.type }).from(entities).where(eq(entities.id, entityId)).get();
  if (entity?.type === "agent") {
    throw forbidden(`Entity "${entityId}" is an agent: agents act only through their own cycles, never with a token`);
  }
  // Unknown ids are not remembered: the routes answer for them as before.
  if (entity === undefined) return;
  if (knownNotAgents.size >= maxRemembered) knownNotAgents.clear();
  knownNotAgents.add(entityId);
}
