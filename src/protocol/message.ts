/**
 * The persisted space message (`space.message` events) and how public-key
 * clients see it: tool parts of `display.mode: "minimal"` tools carry only id,
 * name and status. A message's parts are tool calls (cards; `task_status` keeps
 * one live card per run and space) and images (a generated image stored in R2,
 * behind a signed link); an image of a minimal tool is not shown to public-key
 * clients.
 */
import { z } from "@hono/zod-openapi";

/** A message's text and mentions, the same rule for people (the route) and agents (`send_message`). */
export const maxMessageChars = 32_000;
export const maxMentions = 50;

/**
 * Who may answer a card, as a UI needs it to decide whether to offer the
 * answer or show the card read-only: listed entities, members with a role, or
 * the person whose message started the run (`entityId`; absent when no
 * person's message did: then only the secret key). No field: any member of
 * the space. The gateway still decides each answer (403 with a reason).
 */
export const CardAnsweredBy = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("entities"), entityIds: z.array(z.string()) }),
    z.object({ kind: z.literal("roles"), roles: z.array(z.string()) }),
    z.object({ kind: z.literal("initiator"), entityId: z.string().optional() }),
  ])
  .openapi("CardAnsweredBy");
export type CardAnsweredBy = z.infer<typeof CardAnsweredBy>;

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
    /** Who may answer (a waiting card with `answeredBy` narrower than the space's members). */
    answeredBy: CardAnsweredBy.optional(),
    /** The entity that answered, when a person or service answered with a token. */
    answerer: z.string().optional(),
    /** Who executed the call, as the answer said (`source`, `clientId` of `POST /api/spaces/{spaceId}/tool-results`); not shown to public-key clients on a `minimal` card. */
    executedBy: z.object({ source: z.string().optional(), clientId: z.string().optional() }).optional(),
    /** Nobody answered in time: the card moved to this space (this card ends with an error). */
    escalatedTo: z.string().optional(),
    /** This card was moved here, unanswered, from that space. */
    escalatedFrom: z.string().optional(),
    /** When the call expired without an answer. */
    expiredAt: z.string().optional(),
    /**
     * Pushing the call to its webhook (`execution.webhook`) failed: the last
     * failed attempt, why (absent for public-key clients on a `minimal`
     * tool's card), and whether another attempt is made. Gone once one gets through.
     */
    pushFailure: z.object({ at: z.string(), attempt: z.number().int(), error: z.string().optional(), willRetry: z.boolean() }).optional(),
    /**
     * The call waits for a person to connect their account at a service: who
     * (`entityId`), the service's name, the scopes asked for, and the flow,
     * whose start link only that person gets (`GET /api/me/connections/flows/{flowId}`).
     * The card itself carries no link: every member sees it.
     */
    account: z
      .object({ entityId: z.string(), service: z.string(), scopes: z.array(z.string()), flowId: z.string(), expiresAt: z.string() })
      .optional()
      .openapi({ description: "A connect-your-account request: only `entityId` can get its link, from GET /api/me/connections/flows/{flowId}" }),
  })
  .openapi("ToolCallPart");

export type ToolCallPart = z.infer<typeof ToolCallPart>;

export const ImagePart = z
  .object({
    type: z.literal("image"),
    /** A signed, expiring link relative to the gateway (`/api/files/download?…`): members of the space may fetch it. */
    url: z.string(),
    mediaType: z.string(),
    alt: z.string().optional(),
    /** When the link stops working. */
    expiresAt: z.string().optional(),
    /** The call that made it. */
    toolCallId: z.string().optional(),
    displayMode: z.enum(["full", "minimal"]).optional(),
  })
  .openapi("ImagePart");

export type ImagePart = z.infer<typeof ImagePart>;

export const MessagePart = z.discriminatedUnion("type", [ToolCallPart, ImagePart]).openapi("MessagePart");
export type MessagePart = z.infer<typeof MessagePart>;

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
    parts: z.array(MessagePart).optional(),
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
  // Who may answer and what became of the card say nothing of the tool's data: a UI needs them to draw it.
  const { type, toolCallId, toolName, status, kind, approves, answeredBy, answerer, remindedAt, escalatedTo, escalatedFrom, expiredAt, pushFailure, account } = part;
  return {
    type,
    toolCallId,
    toolName,
    status,
    // An approval card stays an approval card (what it gates is an id, not data).
    ...(kind && { kind }),
    ...(approves && { approves }),
    ...(answeredBy && { answeredBy }),
    ...(answerer && { answerer }),
    ...(remindedAt && { remindedAt }),
    ...(escalatedTo && { escalatedTo }),
    ...(escalatedFrom && { escalatedFrom }),
    ...(expiredAt && { expiredAt }),
    // Whose account and which service: the person needs it to see the card is theirs (it carries no link).
    ...(account && { account }),
    // That a push failed, not why: the error may name the receiver.
    ...(pushFailure && { pushFailure: { at: pushFailure.at, attempt: pushFailure.attempt, willRetry: pushFailure.willRetry } }),
  };
}

/** The message as a public-key client may see it (a minimal tool's image is left out). */
export function redactMessage(message: Message): Message {
  if (!message.parts) return message;
  return {
    ...message,
    parts: message.parts.flatMap((part): MessagePart[] => {
      if (part.type === "tool_call") return [redactPart(part)];
      if (part.displayMode === "minimal") return [];
      const { displayMode: _displayMode, ...rest } = part;
      return [rest];
    }),
  };
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
  parts?: MessagePart[];
  mentions?: string[];
  status?: string;
};
