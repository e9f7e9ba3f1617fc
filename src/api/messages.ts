/**
 * `POST /api/spaces/:spaceId/messages` (secret naming `entityId`, or a member
 * JWT) and `GET …/messages?afterSeq=&limit=` (oldest first). Both go through
 * the space's object, which holds the newest messages and knows the members.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { resolveEntityId, resolveEntityIds } from "../db/resolve-entity-id";
import { getSpace } from "../db/spaces";
import { ApiError, forbidden, notFound } from "../errors";
import { fullMessage, maxMentions, maxMessageChars, Message, redactMessage } from "../protocol/message";
import { spaceStub } from "../spaces/space-stub";
import { requireSpaceAccess } from "./authorize";
import { type ApiContext, type ApiEnv, createRouter, newId } from "./context";
import { type EntityCaller, routeAccess, type SecretCaller } from "./route-access";
import { errorResponses, jsonBody, jsonContent, queryInteger, SpaceIdParam, writeErrorResponses } from "./schemas";
import { traceparentHeader, traceparentOf } from "../telemetry/trace-context";

const SendMessage = z
  .object({
    text: z.string().min(1).max(maxMessageChars),
    entityId: z.string().min(1).max(100).optional().openapi({ description: "Required with the secret key: who is speaking" }),
    mentions: z.array(z.string().min(1).max(100)).max(maxMentions).optional().openapi({ description: "Entity ids; a mentioned agent wakes" }),
  })
  .strict()
  .openapi("SendMessage");

const MessageList = z.object({ messages: z.array(Message) }).openapi("MessageList");

const ListQuery = z.object({
  afterSeq: queryInteger("afterSeq", 0, Number.MAX_SAFE_INTEGER),
  limit: queryInteger("limit", 1, 200),
});

/**
 * A message posted by the caller, as the route posts it (the MCP face's
 * `send_message` and `ask_agent` too): the secret key names the speaker, a
 * token speaks as its own entity; the space object checks the speaker and
 * the mentions, posts, and wakes the agents. Answers the message as the
 * caller may see it. `messageId`, when the caller derived one (the A2A
 * face's message sent again): a message with that id already stored is
 * returned, not posted twice.
 */
export async function postAsCaller<Env extends ApiEnv>(
  c: ApiContext<Env>,
  principal: SecretCaller | EntityCaller,
  spaceId: string,
  input: { text: string; entityId?: string; mentions?: string[]; traceparent?: string },
  messageId?: string,
): Promise<Message> {
  const database = getDatabase(c.env.DB);
  let speakerId: string;
  if (principal.kind === "secret") {
    if (!input.entityId) throw new ApiError(400, "validation_error", "entityId: Required when sending with the secret key");
    speakerId = await resolveEntityId(database, input.entityId);
  } else {
    if (input.entityId !== undefined && (await resolveEntityId(database, input.entityId)) !== principal.entityId) {
      throw forbidden("A token may only send messages as its own entity");
    }
    speakerId = principal.entityId;
  }
  const mentions = [...new Set(await resolveEntityIds(database, input.mentions ?? []))];
  const posted = await spaceStub(c.env, spaceId).postChatMessage({
    // With an Idempotency-Key the id is derived from it: a retry finds the stored message.
    ...(messageId !== undefined ? { id: messageId } : c.get("idempotency") && { id: newId(c, "msg") }),
    speakerId,
    principal: principal.kind === "secret" ? "secret" : "member",
    text: input.text,
    mentions,
    hop: c.get("hop"),
    // A caller's trace context: given (an MCP request's `_meta`), else the request's header.
    ...traceparentOf(input.traceparent ?? c.req.header(traceparentHeader)),
    origin: new URL(c.req.url).origin,
  });
  if (!posted.ok) throw new ApiError(posted.status, posted.code, posted.message);
  return principal.kind === "secret" ? posted.message : redactMessage(posted.message);
}

export const messageRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/spaces/{spaceId}/messages",
      tags: ["messages"],
      ...routeAccess("secret-or-member"),
      request: { params: SpaceIdParam, ...jsonBody(SendMessage) },
      responses: { 201: jsonContent(Message, "The persisted message"), ...writeErrorResponses },
    }),
    async (c) => {
      const { spaceId } = c.req.valid("param");
      return c.json(await postAsCaller(c, c.get("caller"), spaceId, c.req.valid("json")), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/spaces/{spaceId}/messages",
      tags: ["messages"],
      ...routeAccess("secret-or-member"),
      request: { params: SpaceIdParam, query: ListQuery },
      responses: { 200: jsonContent(MessageList, "Messages after afterSeq, oldest first"), ...errorResponses },
    }),
    async (c) => {
      const { spaceId } = c.req.valid("param");
      const { afterSeq = 0, limit = 50 } = c.req.valid("query");
      const principal = c.get("caller");
      await requireSpaceAccess(c.env, principal, spaceId);
      if (!(await getSpace(getDatabase(c.env.DB), spaceId))) throw notFound("Space", spaceId);
      // Through the space object: the newest messages are there before D1 has them.
      const messages = await spaceStub(c.env, spaceId).readMessages(afterSeq, limit);
      return c.json({ messages: messages.map(principal.kind === "secret" ? fullMessage : redactMessage) }, 200);
    },
  );
