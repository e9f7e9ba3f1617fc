/**
 * Webhook subscriptions (secret key): an agent's or a space's events
 * (`call.awaiting_input`, `call.expired`, `run.completed`, `run.failed`)
 * pushed to a URL, signed the Standard Webhooks way with the subscription's
 * own `whsec_…` secret. The agents concerned are told at once, so the next
 * event already reaches a new subscription and none reaches a deleted one.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { agentStub } from "../agents/agent-stub";
import { getAgent } from "../agents/agent-record";
import { listAgentsInSpace } from "../agents/agent-lists";
import { getDatabase } from "../db/client";
import { webhookSubscriptions } from "../db/schema";
import { getSpace } from "../db/spaces";
import {
  getSubscription,
  insertSubscriptionWithinLimit,
  listSubscriptions,
  maxSubscriptionsPerTarget,
  type WebhookSubscription as StoredSubscription,
} from "../webhooks/webhook-subscriptions";
import type { AppEnv } from "../env";
import { ApiError, notFound } from "../errors";
import { webhookEventTypes } from "../webhooks/webhook-event";
import { newWebhookSecret } from "../webhooks/standard-webhooks";
import { OutboundUrl, outboundUrlProblem, urlPolicyOf } from "../security/url-policy";
import { createRouter, validationError } from "./context";
import { pageQuery, readCursor } from "./discovery";
import { routeAccess } from "./route-access";
import { errorResponses, jsonBody, jsonContent, SuccessResponse, writeErrorResponses } from "./schemas";

const WebhookIdParam = z.object({
  webhookId: z
    .string()
    .regex(/^whk_[0-9a-f]{32}$/)
    .openapi({ param: { name: "webhookId", in: "path" }, example: "whk_0123456789abcdef0123456789abcdef" }),
});

const CreateWebhook = z
  .object({
    url: OutboundUrl.openapi({ description: "Where the events are POSTed (http or https; the URL policy applies)" }),
    events: z
      .array(z.enum(webhookEventTypes))
      .min(1)
      .max(webhookEventTypes.length)
      .refine((events) => new Set(events).size === events.length, "Each event type once")
      .openapi({ description: "The event types pushed" }),
    agentId: z.string().min(1).max(100).optional().openapi({ description: "The agent whose events are pushed (or spaceId)" }),
    spaceId: z.string().min(1).max(100).optional().openapi({ description: "The space whose events are pushed: calls whose card is in it, runs announced to it (or agentId)" }),
    description: z.string().max(500).optional(),
  })
  .strict()
  .refine((body) => (body.agentId === undefined) !== (body.spaceId === undefined), { message: "Give exactly one of agentId and spaceId", path: ["agentId"] })
  .openapi("CreateWebhookSubscription");

const Subscription = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(webhookEventTypes)),
    agentId: z.string().nullable(),
    spaceId: z.string().nullable(),
    description: z.string().nullable(),
    secret: z.string().openapi({ description: "`whsec_…`: verify the `webhook-signature` of each push with it (any Standard Webhooks library)" }),
    createdAt: z.string(),
  })
  .openapi("WebhookSubscription");

const ListQuery = z.object({
  agentId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: "agentId", in: "query" } }),
  spaceId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: "spaceId", in: "query" } }),
  ...pageQuery,
  before: z
    .string()
    .regex(/^whk_[0-9a-f]{32}$/)
    .optional()
    .openapi({ param: { name: "before", in: "query" }, description: "Deprecated (use `cursor`): the id of the last subscription of the previous page" }),
});

const shown = (row: StoredSubscription) => ({
  ...row,
  events: row.events.filter((event): event is (typeof webhookEventTypes)[number] => (webhookEventTypes as readonly string[]).includes(event)),
});

/** The agents whose objects push this subscription's events: told to read their subscriptions again. */
async function tellAgents(env: AppEnv, subscription: { agentId: string | null; spaceId: string | null }): Promise<void> {
  const database = getDatabase(env.DB);
  const agentIds = subscription.agentId ? [subscription.agentId] : subscription.spaceId ? (await listAgentsInSpace(database, subscription.spaceId)).map((agent) => agent.id) : [];
  // An agent that cannot be told reads them again within a minute anyway.
  await Promise.all(
    agentIds.map((agentId) =>
      agentStub(env, agentId)
        .webhooksChanged()
        .catch((error: unknown) => console.error("could not tell an agent its webhooks changed", agentId, error)),
    ),
  );
}

export const webhookRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/api/webhooks",
      operationId: "createWebhookSubscription",
      summary: "Subscribe a URL to an agent's or a space's events",
      description:
        "Pushes `call.awaiting_input`, `call.expired`, `run.completed` and `run.failed` as Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), signed with the subscription's own secret (in the answer). At most 20 per agent or space.",
      tags: ["webhooks"],
      ...routeAccess("secret"),
      request: jsonBody(CreateWebhook),
      responses: { 201: jsonContent(Subscription, "The subscription, with its secret"), ...writeErrorResponses },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const refused = outboundUrlProblem(body.url, urlPolicyOf(c.env));
      if (refused !== undefined) throw validationError([{ path: ["url"], message: refused }], "body");
      const database = getDatabase(c.env.DB);
      if (body.agentId && !(await getAgent(database, body.agentId))) throw notFound("Agent", body.agentId);
      if (body.spaceId && !(await getSpace(database, body.spaceId))) throw notFound("Space", body.spaceId);
      const idempotency = c.get("idempotency");
      const id = `whk_${idempotency ? idempotency.deriveId("evt").slice(4, 36) : crypto.randomUUID().replaceAll("-", "")}`;
      const row: StoredSubscription = {
        id,
        url: body.url,
        events: body.events,
        agentId: body.agentId ?? null,
        spaceId: body.spaceId ?? null,
        secret: newWebhookSecret(),
        description: body.description ?? null,
        createdAt: new Date().toISOString(),
      };
      // The limit is checked by the insert itself, so it holds under concurrent requests.
      if (!(await insertSubscriptionWithinLimit(database, row))) {
        throw new ApiError(
          409,
          "limit_reached",
          `${body.agentId ? `Agent "${body.agentId}"` : `Space "${body.spaceId}"`} already has ${maxSubscriptionsPerTarget} webhook subscriptions; delete one first`,
        );
      }
      await tellAgents(c.env, row);
      return c.json(shown(row), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/webhooks",
      operationId: "listWebhookSubscriptions",
      summary: "List webhook subscriptions",
      description: "Newest first (by creation time, then id); filter by agentId or spaceId; pass `nextCursor` back as `cursor` for the next page.",
      tags: ["webhooks"],
      ...routeAccess("secret"),
      request: { query: ListQuery },
      responses: {
        200: jsonContent(
          z.object({ webhooks: z.array(Subscription), nextCursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" }) }),
          "Subscriptions",
        ),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { agentId, spaceId, limit = 50, cursor, before } = c.req.valid("query");
      const database = getDatabase(c.env.DB);
      let after = readCursor(cursor);
      if (after === undefined && before !== undefined) {
        // The earlier way to page: the row named stands for its own (createdAt, id).
        const last = await getSubscription(database, before);
        if (!last) throw new ApiError(400, "invalid_query", `before: no webhook subscription "${before}" (page with cursor = nextCursor)`);
        after = { createdAt: last.createdAt, id: last.id };
      }
      const page = await listSubscriptions(database, { agentId, spaceId, limit, cursor: after });
      return c.json({ webhooks: page.items.map(shown), nextCursor: page.nextCursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/webhooks/{webhookId}",
      operationId: "getWebhookSubscription",
      summary: "Get a webhook subscription",
      tags: ["webhooks"],
      ...routeAccess("secret"),
      request: { params: WebhookIdParam },
      responses: { 200: jsonContent(Subscription, "The subscription"), ...errorResponses },
    }),
    async (c) => {
      const { webhookId } = c.req.valid("param");
      const row = await getSubscription(getDatabase(c.env.DB), webhookId);
      if (!row) throw notFound("Webhook subscription", webhookId);
      return c.json(shown(row), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/api/webhooks/{webhookId}",
      operationId: "deleteWebhookSubscription",
      summary: "Delete a webhook subscription",
      description: "Nothing more is pushed to it, retries of earlier pushes included.",
      tags: ["webhooks"],
      ...routeAccess("secret"),
      request: { params: WebhookIdParam },
      responses: { 200: jsonContent(SuccessResponse, "Deleted"), ...writeErrorResponses },
    }),
    async (c) => {
      const { webhookId } = c.req.valid("param");
      const database = getDatabase(c.env.DB);
      const row = await getSubscription(database, webhookId);
      if (!row) throw notFound("Webhook subscription", webhookId);
      await database.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, webhookId));
      await tellAgents(c.env, row);
      return c.json({ success: true as const }, 200);
    },
  );
