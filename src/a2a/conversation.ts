/**
 * A conversation (the protocol's `contextId`) is a space: the first message
 * without a `contextId` makes one with the agent and whoever speaks in it,
 * and later messages that name it go into it. Who speaks: a person with a
 * JWT speaks as themself; the secret key speaks as the agent's "A2A client",
 * a service entity made once per agent (found again by its external id).
 * Only spaces this face made for this agent are its conversations, so a
 * `contextId` cannot post into any other space.
 */
import { eq } from "drizzle-orm";
import type { AgentRecord } from "../agents/agent-record";
import { notifyMembershipChanged } from "../agents/notify-membership";
import { requireSpaceAccess } from "../api/authorize";
import type { ApiContext } from "../api/context";
import type { EntityCaller, SecretCaller } from "../api/route-access";
import { getDatabase } from "../db/client";
import { entities } from "../db/schema";
import { getSpace, insertSpaceWithMembers } from "../db/spaces";
import { ApiError, forbidden } from "../errors";
import { createId } from "../ids";
import { spaceStub } from "../spaces/space-stub";
import { RpcError, rpcErrorCodes } from "./json-rpc";

export type A2aCaller = SecretCaller | EntityCaller;

/** The space metadata key that marks a space as one agent's A2A conversation. */
export const conversationKey = "a2aAgentId";

/** Whether a caller may start a conversation with this agent (the secret key always may). */
export function mayStart(agent: AgentRecord, caller: A2aCaller): boolean {
  if (caller.kind === "secret") return true;
  const people = agent.config.a2a?.people ?? [];
  return people === "anyone" || people.includes(caller.entityId);
}

/** The entity whose messages the caller's are: the person, or the agent's A2A client for the secret key. */
export async function speakerOf(c: ApiContext, agent: AgentRecord, caller: A2aCaller): Promise<string> {
  if (caller.kind === "entity") return caller.entityId;
  const database = getDatabase(c.env.DB);
  const externalId = `a2a-client:${agent.id}`;
  await database
    .insert(entities)
    .values({ id: createId("ent"), type: "service", name: `A2A client of ${agent.name}`.slice(0, 100), externalId })
    .onConflictDoNothing({ target: entities.externalId });
  const row = await database.select({ id: entities.id }).from(entities).where(eq(entities.externalId, externalId)).get();
  if (!row) throw new Error(`the A2A client entity of agent ${agent.id} could not be made`);
  return row.id;
}

/** Where a message goes, checked before anything is kept: the conversation it names (which must be this agent's and the caller's), or, when it names none, whether the caller may start one. */
export async function checkDestination(c: ApiContext, agent: AgentRecord, caller: A2aCaller, contextId: string | undefined): Promise<void> {
  if (contextId !== undefined) return checkConversation(c, agent, caller, contextId);
  if (!mayStart(agent, caller)) throw forbidden(`This token may not start a conversation with agent "${agent.id}" (its config's a2a.people does not name you)`);
}

/** An id for a new conversation (made by `openConversation`). */
export const newConversationId = () => createId("spc");

/**
 * Makes the conversation `spaceId` with the agent and the speaker in it,
 * unless it exists: done again with the same id (a message sent again after
 * its first request died), it makes nothing twice.
 */
export async function openConversation(c: ApiContext, agent: AgentRecord, speaker: string, spaceId: string): Promise<void> {
  const database = getDatabase(c.env.DB);
  const memberIds = [agent.entityId, speaker];
  const created = await insertSpaceWithMembers(database, { id: spaceId, name: `A2A: ${agent.name}`.slice(0, 200), metadata: { [conversationKey]: agent.id } }, memberIds);
  if (!created) return;
  await spaceStub(c.env, spaceId).emitMany(memberIds.map((entityId) => ({ type: "space.member.joined" as const, data: { entityId } })));
  await notifyMembershipChanged(c.env, database, [agent.entityId]);
}

/** A `contextId` must name one of this agent's conversations that the caller is in (a person) or any of them (the secret key). */
export async function checkConversation(c: ApiContext, agent: AgentRecord, caller: A2aCaller, contextId: string): Promise<void> {
  const space = await getSpace(getDatabase(c.env.DB), contextId);
  if (!space || space.metadata[conversationKey] !== agent.id) {
    throw new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: contextId "${contextId}" names no conversation with this agent`);
  }
  try {
    await requireSpaceAccess(c.env, caller, contextId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403)
      throw new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: contextId "${contextId}" names no conversation of yours`);
    throw error;
  }
}
