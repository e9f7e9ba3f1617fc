/**
 * What a space object does for the layers that post into it (the tool
 * engine, the agent cycle, the routes): the RPC surface of SpaceDO, declared
 * here so those layers need not import the object itself. A space object
 * knows its own id (its name), so no call passes it.
 */
import type { Message, MessagePart, NewMessage, ToolCallPart } from "./message";
import type { SpaceEventInput } from "./space-event";

export type SpacePort = {
  /** Persists a message (D1 first), then broadcasts it; a message id already stored is returned as it is. */
  postMessage(input: NewMessage): Promise<Message>;
  /**
   * Changes one tool part of a message and broadcasts `space.message.updated` (nothing when nothing changes).
   * `addParts` are appended (an image the call made), each once: a part of the same type and call is not added again.
   */
  updateToolPart(messageId: string, toolCallId: string, changes: Partial<ToolCallPart>, status?: string, addParts?: MessagePart[]): Promise<Message | undefined>;
  emit(event: SpaceEventInput): Promise<number>;
  /** Several events in order, in one call. */
  emitMany(events: SpaceEventInput[]): Promise<number>;
  /** A member left: broadcast it, then close that entity's connections. */
  removeMember(entityId: string): Promise<void>;
};
