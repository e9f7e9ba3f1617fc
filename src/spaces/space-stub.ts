/**
 * The SpaceDO of a space, addressed by the space id, typed by what its RPC
 * methods return (the messages carry JSON values the RPC types cannot infer).
 */
import type { AppEnv } from "../env";
import type { Message, ToolCallPart } from "./message";
import type { NewMessage } from "./space-do";
import type { SpaceEventInput } from "./space-event";

export type SpaceRpc = {
  postMessage(spaceId: string, input: NewMessage): Promise<Message>;
  updateToolPart(spaceId: string, messageId: string, toolCallId: string, changes: Partial<ToolCallPart>, status?: string): Promise<Message | undefined>;
  emit(spaceId: string, event: SpaceEventInput): Promise<number>;
  emitMany(spaceId: string, events: SpaceEventInput[]): Promise<number>;
  removeMember(spaceId: string, entityId: string): Promise<void>;
  lastSeq(): Promise<number>;
  fetch(request: Request): Promise<Response>;
};

export function spaceStub(env: AppEnv, spaceId: string): SpaceRpc {
  return env.SPACE.get(env.SPACE.idFromName(spaceId)) as unknown as SpaceRpc;
}
