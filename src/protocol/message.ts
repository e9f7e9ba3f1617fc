/**
 * The persisted space message (contract §8) and how public-key clients see it:
 * tool parts of `display.mode: "minimal"` tools carry only id, name and status.
 */
import { z } from "@hono/zod-openapi";

/** A message's text and mentions, the same rule for people (the route) and agents (`send_message`). */
export const maxMessageChars = 32_000;
export const maxMentions = 50;

export const ToolCallPart = z
  .object({
    type: z.literal("tool_call"),
    toolCallId: z.string(),
    toolName: z.string(),
    args: z.unknown().optional(),
    result: z.unknown().optional(),
    status: z.enum(["running", "requires_action", "complete", "error"]),
    customUI: z.string().optional(),
    runId: z.string().optional(),
    /** Set on tools whose `display.mode` is `minimal`; never sent to public-key clients. */
    displayMode: z.enum(["full", "minimal"]).optional(),
    /** `approval`: a yes/no a person gives before the call `approves` runs (answer it with this part's `toolCallId`). */
    kind: z.literal("approval").optional(),
    approves: z.string().optional(),
    /** When the card was last brought up again before its deadline. */
    remindedAt: z.string().optional(),
  })
  .openapi("ToolCallPart");

export type ToolCallPart = z.infer<typeof ToolCallPart>;

export const MessageRole = z.enum(["user", "assistant", "tool", "system"]);
export type MessageRole = z.infer<typeof MessageRole>;

export const Message = z
  .object({
    id: z.string(),
    spaceId: z.string(),
    seq: z.number().int(),
    entityId: z.string(),
    role: MessageRole,
    text: z.string().optional(),
    parts: z.array(ToolCallPart).optional(),
    mentions: z.array(z.string()).optional(),
    status: z.string(),
    createdAt: z.string(),
    updatedAt: z.string().optional(),
  })
  .openapi("Message");

export type Message = z.infer<typeof Message>;

export function redactPart(part: ToolCallPart): ToolCallPart {
  if (part.displayMode !== "minimal") {
    const { displayMode: _displayMode, ...rest } = part;
    return rest;
  }
  return { type: part.type, toolCallId: part.toolCallId, toolName: part.toolName, status: part.status };
}

/** The message as a public-key client may see it. */
export function redactMessage(message: Message): Message {
  if (!message.parts) return message;
  return { ...message, parts: message.parts.map(redactPart) };
}

/** The message as a secret-key client sees it (internal markers removed). */
export function fullMessage(message: Message): Message {
  if (!message.parts) return message;
  return {
    ...message,
    parts: message.parts.map(({ displayMode: _displayMode, ...rest }) => rest),
  };
}

/** A message to post: the space gives it its seq; a caller may name it first (streamed replies, tool cards, idempotent retries). */
export type NewMessage = {
  id?: string;
  entityId: string;
  role: MessageRole;
  text?: string;
  parts?: ToolCallPart[];
  mentions?: string[];
  status?: string;
};
