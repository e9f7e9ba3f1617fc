/**
 * `POST /api/spaces/:spaceId/messages` (secret naming `entityId`, or a member
 * JWT) and `GET …/messages?afterSeq=&limit=` (oldest first).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { getDatabase } from "../db/client";
import { listMessages } from "../db/messages";
import { resolveEntityId, resolveEntityIds } from "../db/resolve-entity-id";
import { getSpace, loadMessageContext } from "../db/spaces";
import { ApiError, forbidden, notFound } from "../errors";
import { fullMessage, maxMentions, maxMessageChars, Message, redactMessage } from "../protocol/message";
import { postSpaceMessage } from "../agents/post-space-message";
import { requireSpaceAccess } from "./authorize";
import { createRouter, newId } from "./context";
import { errorResponses, jsonBody, jsonContent, queryInteger, SpaceIdParam, writeErrorResponses } from "./schemas";


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

export const messageRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/spaces/{spaceId}/messages",
      tags: ["messages"],
      request: { params: SpaceIdParam, ...jsonBody(SendMessage) },
      responses: { 201: jsonContent(Message, "The persisted message"), ...writeErrorResponses },
    }),
    async (c) => {
      const { spaceId } = c.req.valid("param");
      const input = c.req.valid("json");
      const principal = await requireSpaceAccess(c, spaceId);
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
      // One round trip: the message's latency is what every subscriber waits for.
      const context = await loadMessageContext(database, spaceId, speakerId);
      const { space, speaker } = context;
      if (!space) throw notFound("Space", spaceId);
      if (!speaker) throw notFound("Entity", speakerId);
      const memberIds = new Set(context.memberIds);
      if (!memberIds.has(speakerId)) throw forbidden(`Entity "${speakerId}" is not a member of space "${spaceId}"`);
      const mentions = [...new Set(await resolveEntityIds(database, input.mentions ?? []))];
      const strangers = mentions.filter((id) => !memberIds.has(id));
      if (strangers.length > 0) {
        throw new ApiError(400, "validation_error", `mentions: not members of this space: ${strangers.join(", ")}`);
      }
      const message = await postSpaceMessage(c.env, database, {
        // With an Idempotency-Key the id is derived from it: a retry finds the stored message.
        ...(c.get("idempotency") && { id: newId(c, "msg") }),
        hop: c.get("hop"),
        origin: new URL(c.req.url).origin,
        spaceId,
        spaceName: space.name,
        entityName: speaker.name,
        agentMembers: context.agentMembers,
        entityId: speakerId,
        entityType: speaker.type,
        role: speaker.type === "agent" ? "assistant" : "user",
        text: input.text,
        mentions,
      });
      return c.json(principal.kind === "secret" ? message : redactMessage(message), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/spaces/{spaceId}/messages",
      tags: ["messages"],
      request: { params: SpaceIdParam, query: ListQuery },
      responses: { 200: jsonContent(MessageList, "Messages after afterSeq, oldest first"), ...errorResponses },
    }),
    async (c) => {
      const { spaceId } = c.req.valid("param");
      const { afterSeq = 0, limit = 50 } = c.req.valid("query");
      const principal = await requireSpaceAccess(c, spaceId);
      const database = getDatabase(c.env.DB);
      if (!(await getSpace(database, spaceId))) throw notFound("Space", spaceId);
      const messages = await listMessages(database, spaceId, afterSeq, limit);
      return c.json({ messages: messages.map(principal.kind === "secret" ? fullMessage : redactMessage) }, 200);
    },
  );
