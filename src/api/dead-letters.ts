/**
 * Dead letters (secret key): webhook deliveries that gave up (a subscription's
 * event whose retry schedule is spent, a pushed call whose deadline passed
 * undelivered), listed newest first, and redelivered by an operator. A
 * redelivery is a fresh delivery from the agent object that made the first
 * one, with the same `webhook-id` and body, so receivers dedupe it; asking
 * again while it is under way (or after it got through) starts nothing more.
 * Mounted before the subscription routes: `/api/webhooks/{webhookId}` would
 * otherwise take `dead-letters` for an id.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { agentStub } from "../agents/agent-stub";
import { getAgent } from "../agents/agent-record";
import { getDatabase } from "../db/client";
import { claimRedelivery, type DeadLetter as StoredDeadLetter, getDeadLetter, listDeadLetters } from "../webhooks/webhook-dead-letters";
import { getSubscription } from "../webhooks/webhook-subscriptions";
import { ApiError, notFound } from "../errors";
import { getPendingCall } from "../tools";
import { pushedCallHorizonMs } from "../webhooks/webhook-retry-schedule";
import { createRouter } from "./context";
import { pageQuery, readCursor } from "./discovery";
import { routeAccess } from "./route-access";
import { ErrorResponse, errorResponses, jsonBody, jsonContent, writeErrorResponses } from "./schemas";

const statuses = ["dead", "redelivering", "delivered"] as const;

const DeadLetterIdParam = z.object({
  deadLetterId: z
    .string()
    .regex(/^dlt_[0-9a-f]{32}$/)
    .openapi({ param: { name: "deadLetterId", in: "path" }, example: "dlt_0123456789abcdef0123456789abcdef" }),
});

const DeadLetter = z
  .object({
    id: z.string(),
    source: z.enum(["subscription", "tool_call"]).openapi({ description: "A subscription's event, or a pushed tool call (`execution.webhook`)" }),
    agentId: z.string().openapi({ description: "The agent whose object delivers it" }),
    subscriptionId: z.string().nullable(),
    toolCallId: z.string().nullable(),
    webhookId: z.string().openapi({ description: "The `webhook-id` of every attempt, redeliveries included: receivers dedupe on it" }),
    type: z.string().openapi({ description: "The event type, or `tool.call`" }),
    url: z.string(),
    body: z.string().openapi({ description: "The exact body pushed (and pushed again)" }),
    attempts: z.number().int(),
    lastError: z.string(),
    status: z.enum(statuses).openapi({ description: "`dead` until an operator redelivers it; `redelivering`; `delivered` once a redelivery got through" }),
    redeliveries: z.number().int(),
    firstAttemptAt: z.string(),
    deadAt: z.string().openapi({ description: "When it (last) gave up" }),
    redeliveredAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
  })
  .openapi("WebhookDeadLetter");

const ListQuery = z.object({
  agentId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: "agentId", in: "query" } }),
  subscriptionId: z
    .string()
    .regex(/^whk_[0-9a-f]{32}$/)
    .optional()
    .openapi({ param: { name: "subscriptionId", in: "query" } }),
  status: z
    .enum(statuses)
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  ...pageQuery,
});

/** Nothing to say: `{}` (a JSON object, as every write takes). */
const Redeliver = z.object({}).strict().openapi("RedeliverDeadLetter");

const shown = (row: StoredDeadLetter): z.infer<typeof DeadLetter> => row;

const gone = (message: string) => new ApiError(410, "gone", message);

/**
 * Why this dead letter cannot be delivered again, if it cannot; else when a
 * pushed call's redelivery gives up (the call's expiry, or a day from now).
 */
async function redeliveryTarget(database: ReturnType<typeof getDatabase>, row: StoredDeadLetter): Promise<{ giveUpAt?: number }> {
  if (!(await getAgent(database, row.agentId))) throw gone(`Agent "${row.agentId}" was deleted: nothing can deliver this again`);
  if (row.subscriptionId) {
    if (!(await getSubscription(database, row.subscriptionId))) throw gone(`Webhook subscription "${row.subscriptionId}" was deleted: there is nowhere to deliver this`);
    return {};
  }
  const call = row.toolCallId ? await getPendingCall(database, row.toolCallId) : undefined;
  if (!call) throw gone(`Tool call "${row.toolCallId ?? ""}" no longer exists`);
  if (call.status === "expired") throw gone(`Tool call "${call.toolCallId}" expired: its push can no longer be answered`);
  if (call.status === "resolved") throw new ApiError(409, "conflict", `Tool call "${call.toolCallId}" was answered already: it needs no push`);
  return { giveUpAt: call.expiresAt ? Date.parse(call.expiresAt) : Date.now() + pushedCallHorizonMs };
}

export const deadLetterRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/webhooks/dead-letters",
      operationId: "listWebhookDeadLetters",
      summary: "List webhook deliveries that gave up",
      description:
        "Subscription events whose retry schedule is spent (8 attempts over about 28 hours) and pushed tool calls whose deadline passed undelivered. Newest first (by when they gave up); filter by agentId, subscriptionId or status; page with `cursor`.",
      tags: ["webhooks"],
      ...routeAccess("secret"),
      request: { query: ListQuery },
      responses: {
        200: jsonContent(z.object({ deadLetters: z.array(DeadLetter), nextCursor: z.string().nullable() }).openapi("WebhookDeadLetterList"), "Dead letters, newest first"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { agentId, subscriptionId, status, limit = 50, cursor } = c.req.valid("query");
      const page = await listDeadLetters(getDatabase(c.env.DB), { agentId, subscriptionId, status, limit, cursor: readCursor(cursor) });
      return c.json({ deadLetters: page.items.map(shown), nextCursor: page.nextCursor }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/webhooks/dead-letters/{deadLetterId}/redeliver",
      operationId: "redeliverWebhookDeadLetter",
      summary: "Deliver a dead letter again",
      description:
        "Starts a fresh delivery now (attempt 1 of a fresh schedule, the same webhook-id and body) and answers the dead letter, `redelivering`. Asking again while it is under way, or after it got through (`delivered`), starts nothing more; honours Idempotency-Key. 410 when its subscription, call or agent is gone (or the call expired); 409 when the call was answered meanwhile.",
      tags: ["webhooks"],
      ...routeAccess("secret"),
      request: { params: DeadLetterIdParam, ...jsonBody(Redeliver) },
      responses: {
        200: jsonContent(DeadLetter, "The dead letter, redelivering (or delivered)"),
        ...writeErrorResponses,
        410: jsonContent(ErrorResponse, "Its subscription, call or agent is gone"),
      },
    }),
    async (c) => {
      const { deadLetterId } = c.req.valid("param");
      const database = getDatabase(c.env.DB);
      const row = await getDeadLetter(database, deadLetterId);
      if (!row) throw notFound("Dead letter", deadLetterId);
      if (row.status === "delivered") return c.json(shown(row), 200);
      const { giveUpAt } = await redeliveryTarget(database, row);
      // Claimed before the agent object starts it, so its success always finds the row `redelivering`.
      if (row.status === "dead") await claimRedelivery(database, row.id, new Date().toISOString());
      // Idempotent in the object too: a delivery already under way is not started again.
      await agentStub(c.env, row.agentId).redeliverWebhook({
        ...(row.subscriptionId ? { subscriptionId: row.subscriptionId, messageId: row.webhookId } : { toolCallId: row.toolCallId ?? undefined }),
        url: row.url,
        body: row.body,
        attempt: 1,
        deadLetterId: row.id,
        ...(giveUpAt !== undefined && { giveUpAt }),
      });
      return c.json(shown((await getDeadLetter(database, row.id)) ?? row), 200);
    },
  );
