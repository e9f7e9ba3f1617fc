/**
 * What a space object does for the layers that post into it (the tool
 * engine, the agent cycle, the routes): the RPC surface of SpaceDO, declared
 * here so those layers need not import the object itself. A space object
 * knows its own id (its name), so no call passes it.
 */
import type { ErrorCode } from "../errors";
import type { Message, MessagePart, NewMessage, ToolCallPart } from "./message";
import type { SpaceEventInput } from "./space-event";

/** A person's or a service's message, as the route hands it over (`principal`: how the caller signed in). */
export type ChatMessageInput = {
  id?: string;
  speakerId: string;
  principal: "secret" | "member";
  text: string;
  mentions: string[];
  hop: number;
  /** The request's W3C `traceparent`, when it carried a valid one: the runs it starts are in its trace. */
  traceparent?: string;
  origin?: string;
};

export type ChatMessageResult = { ok: true; message: Message } | { ok: false; status: 400 | 403 | 404; code: ErrorCode; message: string };

export type SpacePort = {
  /** Writes a message in the space (durable there before it is broadcast; D1 gets it shortly after); a message id already stored is returned as it is. */
  postMessage(input: NewMessage): Promise<Message>;
  /** An agent's `send_message`: its mentions checked as a person's are, then posted (the agent wakes those it mentions itself). */
  postAgentMessage(input: NewMessage): Promise<ChatMessageResult>;
  /** A person's or a service's message: checked against the members, posted, and delivered to the agents it wakes. */
  postChatMessage(input: ChatMessageInput): Promise<ChatMessageResult>;
  /** Messages after `afterSeq`, oldest first. */
  readMessages(afterSeq: number, limit: number): Promise<Message[]>;
  /** One message by its id (undefined when the space has none by that id). */
  getMessage(messageId: string): Promise<Message | undefined>;
  /** The newest `limit` messages after skipping the newest `offset`, oldest first. */
  recentMessages(limit: number, offset?: number): Promise<Message[]>;
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
