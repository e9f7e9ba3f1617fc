/**
 * Posts a chat message into a space: persisted and broadcast by the SpaceDO,
 * then delivered to the inboxes of the agents it should wake (§7).
 */
import type { AppEnv } from "../env";
import type { Message, MessageRole } from "./message";
import { spaceStub } from "./space-stub";

export type SpaceMessageInput = {
  spaceId: string;
  entityId: string;
  entityType: "human" | "agent" | "service";
  role: MessageRole;
  text: string;
  mentions: string[];
  /** A pre-chosen id (an agent's streamed reply announces it before it exists). */
  id?: string;
};

export async function postSpaceMessage(env: AppEnv, input: SpaceMessageInput): Promise<Message> {
  return spaceStub(env, input.spaceId).postMessage(input.spaceId, {
    id: input.id,
    entityId: input.entityId,
    role: input.role,
    text: input.text,
    mentions: input.mentions,
  });
}
