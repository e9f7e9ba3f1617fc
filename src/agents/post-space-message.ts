/**
 * Posts a chat message into a space: persisted and broadcast by the SpaceDO,
 * then delivered to the inboxes of the agents it should wake (§7).
 */
import { wakeAgentsForMessage } from "./wake-agents";
import type { Database } from "../db/client";
import type { AppEnv } from "../env";
import type { Message, MessageRole } from "../protocol/message";
import { spaceStub } from "../spaces/space-stub";

export type SpaceMessageInput = {
  spaceId: string;
  entityId: string;
  entityType: "human" | "agent" | "service";
  role: MessageRole;
  text: string;
  mentions: string[];
  entityName?: string;
  spaceName?: string;
  /** The space's agent members, when the caller already read them. */
  agentMembers?: { agentId: string; entityId: string }[];
  /** How many agent cycles led to this message (`x-switchboard-hop`). */
  hop?: number;
  /** The message's id, when the caller derived one (an `Idempotency-Key`): posting it again finds it. */
  id?: string;
  /** Where the request came in (the agents remember it for callback URLs). */
  origin?: string;
};

export async function postSpaceMessage(env: AppEnv, database: Database, input: SpaceMessageInput): Promise<Message> {
  const message = await spaceStub(env, input.spaceId).postMessage({
    ...(input.id && { id: input.id }),
    entityId: input.entityId,
    role: input.role,
    text: input.text,
    mentions: input.mentions,
  });
  await wakeAgentsForMessage(env, database, {
    message,
    speaker: { entityId: input.entityId, name: input.entityName, type: input.entityType },
    spaceName: input.spaceName,
    agentMembers: input.agentMembers,
    hop: input.hop,
    origin: input.origin,
  });
  return message;
}
