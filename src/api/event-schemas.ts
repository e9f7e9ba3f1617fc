/**
 * The stream events as OpenAPI components, so SDKs are typed from the same
 * document as the routes: `SpaceEvent` (the space stream, docs/api-reference.md),
 * `AgentEvent` (the agent stream, docs/agents.md) and `ToolCallWebhook` (what
 * a tool's `execution.webhook` receives), and under `webhooks` what a
 * webhook subscription receives (`SubscriptionEvents`). Objects are loose: an event may
 * carry more fields than listed, never fewer.
 * `test/event-schemas.test.ts` checks the events real cycles emit against these.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { Message } from "../protocol/message";

const space = <T extends string, D extends z.ZodType>(type: T, data: D) => z.object({ seq: z.number().int(), spaceId: z.string(), type: z.literal(type), at: z.string(), data });
const agent = <T extends string, D extends z.ZodType>(type: T, data: D) => z.object({ seq: z.number().int(), agentId: z.string(), type: z.literal(type), at: z.string(), data });

const loose = z.looseObject;
const runStatus = z.enum(["running", "completed", "failed", "interrupted"]);

export const SpaceEvent = z
  .discriminatedUnion("type", [
    space("space.message", Message),
    space("space.message.streaming", loose({ streamId: z.string(), entityId: z.string(), delta: z.string() })),
    space("space.message.updated", Message),
    space("space.member.joined", loose({ entityId: z.string() })),
    space("space.member.left", loose({ entityId: z.string() })),
    space("agent.cycle.started", loose({ agentEntityId: z.string(), runId: z.string() })),
    space(
      "agent.cycle.finished",
      loose({
        agentEntityId: z.string(),
        runId: z.string(),
        status: runStatus.optional().openapi({ description: "How the run ended" }),
        error: z.string().optional().openapi({ description: "Why a failed run failed" }),
      }),
    ),
    space("tool.started", loose({ toolCallId: z.string(), toolName: z.string(), agentEntityId: z.string(), runId: z.string() })),
    space("tool.streaming", loose({ toolCallId: z.string(), partialArgs: z.unknown().optional() })),
    space("tool.done", loose({ toolCallId: z.string(), toolName: z.string(), args: z.unknown().optional(), result: z.unknown().optional() })),
    space("tool.error", loose({ toolCallId: z.string(), toolName: z.string(), error: z.unknown().optional() })),
  ])
  .openapi("SpaceEvent", { description: "One event of a space stream: a WebSocket text frame, or the data of an SSE frame whose id is the seq" });

const usage = loose({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() });

/** What a pending external/space call announces (agent stream `tool.pending`, webhooks). */
const PendingCall = loose({
  runId: z.string(),
  toolCallId: z.string().openapi({ description: "The callId to answer with POST /api/runs/{runId}/tool-results" }),
  toolName: z.string(),
  executionType: z.enum(["external", "space", "gateway", "mcp", "openapi"]).openapi({
    description: "`gateway`, `mcp`, `openapi`: a call that waits for its person to connect an account (it carries `account`)",
  }),
  args: z.unknown(),
  status: z.enum(["waiting", "pending"]),
  account: z
    .object({ entityId: z.string(), service: z.string(), scopes: z.array(z.string()), flowId: z.string(), expiresAt: z.string() })
    .optional()
    .openapi({ description: "A call that waits for `entityId` to connect an account: the link is theirs, from GET /api/me/connections/flows/{flowId}" }),
  expiresAt: z.string().optional(),
  spaceId: z.string().optional(),
  messageId: z.string().optional(),
  resultUrl: z.string().optional().openapi({ description: "Where to POST the result; absent for a call that waits for an account (nobody answers it in the service's place)" }),
  callbackUrl: z.string().optional().openapi({ description: "A URL that answers this one call with a POST of {result} or {error}, no other credential needed" }),
  modelToolCallId: z.string().optional().openapi({ description: "The model's own id for the call (toolCallId is the gateway's)" }),
});

export const AgentEvent = z
  .discriminatedUnion("type", [
    agent("agent.inbox.received", loose({ eventId: z.string(), event: z.unknown() })),
    agent("agent.cycle.started", loose({ runId: z.string(), trigger: z.unknown(), attempt: z.number().optional() })),
    agent("agent.cycle.resumed", loose({ runId: z.string(), trigger: z.unknown(), attempt: z.number(), step: z.number() })),
    agent("agent.cycle.retrying", loose({ runId: z.string(), attempt: z.number(), error: z.string(), retryAt: z.string() })),
    agent("agent.cycle.throttled", loose({ limit: z.number(), retryAt: z.string() })),
    agent("agent.wake.refused", loose({ messageId: z.string(), hop: z.number(), maxHops: z.number(), reason: z.string() })),
    agent("agent.cycle.finished", loose({ runId: z.string(), status: runStatus, usage: usage.nullable().optional(), error: z.string().optional() })),
    agent("agent.cycle.interrupted", loose({ runId: z.string() })),
    agent("agent.text.delta", loose({ runId: z.string(), stepNumber: z.number(), delta: z.string() })),
    agent("agent.step.finished", loose({ runId: z.string(), stepNumber: z.number(), text: z.string(), finishReason: z.string(), toolCallIds: z.array(z.string()) })),
    agent("tool.requested", loose({ runId: z.string(), toolCallId: z.string(), toolName: z.string(), args: z.unknown(), stepNumber: z.number() })),
    agent("tool.input.delta", loose({ runId: z.string(), toolCallId: z.string(), toolName: z.string(), delta: z.string() })),
    agent("tool.pending", PendingCall),
    agent(
      "tool.completed",
      loose({ runId: z.string(), toolCallId: z.string(), toolName: z.string(), args: z.unknown(), result: z.unknown().optional(), latencyMs: z.number().optional() }),
    ),
    agent(
      "tool.failed",
      loose({
        runId: z.string(),
        toolCallId: z.string(),
        toolName: z.string(),
        args: z.unknown(),
        error: z.unknown(),
        result: z.unknown().optional(),
        latencyMs: z.number().optional(),
      }),
    ),
    agent("tool.result.received", loose({ toolCallId: z.string(), runId: z.string(), delivery: z.enum(["inline", "inbox"]).optional() })),
    agent("tool.webhook.delivered", loose({ toolCallId: z.string(), attempt: z.number() })),
    agent(
      "tool.webhook.failed",
      loose({ toolCallId: z.string(), attempt: z.number(), error: z.string().optional(), willRetry: z.boolean().optional(), nextAttemptAt: z.string().optional() }),
    ),
    agent("tool.webhook.dead_lettered", loose({ toolCallId: z.string(), deadLetterId: z.string(), attempts: z.number(), error: z.string() })),
    agent("webhook.delivered", loose({ subscriptionId: z.string(), webhookId: z.string(), attempt: z.number() })),
    agent(
      "webhook.failed",
      loose({
        subscriptionId: z.string(),
        webhookId: z.string(),
        attempt: z.number(),
        error: z.string().optional(),
        willRetry: z.boolean().optional(),
        nextAttemptAt: z.string().optional(),
      }),
    ),
    agent("webhook.dead_lettered", loose({ subscriptionId: z.string(), webhookId: z.string(), deadLetterId: z.string(), attempts: z.number(), error: z.string() })),
    agent("a2a.push.delivered", loose({ taskId: z.string(), configId: z.string(), webhookId: z.string(), attempt: z.number() })),
    agent(
      "a2a.push.failed",
      loose({
        taskId: z.string(),
        configId: z.string(),
        webhookId: z.string(),
        attempt: z.number(),
        error: z.string().optional(),
        willRetry: z.boolean().optional(),
        nextAttemptAt: z.string().optional(),
      }),
    ),
    agent("mcp.server.connected", loose({ server: z.string(), tools: z.unknown() })),
    agent("mcp.server.failed", loose({ server: z.string(), url: z.string().optional(), error: z.string() })),
    agent(
      "mcp.server.account_needed",
      loose({
        server: z.string(),
        url: z.string(),
        reason: z.string().openapi({ description: "Why the server could not be listed for the account's owner (never a token)" }),
        tools: z.array(z.string()).openapi({ description: "The tools offered anyway: the server's last listing, or its auth.tools" }),
      }),
    ),
    agent(
      "telemetry.dropped",
      loose({
        dropped: z.number().openapi({ description: "Spans dropped this time" }),
        reason: z.enum(["buffer_full", "export_failed"]),
        totalDropped: z.number().openapi({ description: "Spans this agent object dropped since it started" }),
        totalExported: z.number().openapi({ description: "Spans this agent object sent since it started" }),
      }),
    ),
  ])
  .openapi("AgentEvent", { description: "One event of an agent stream (secret key): every tool call with full args and results, cycles, calls to execute" });

export const ToolCallWebhook = PendingCall.extend({ type: z.literal("tool.call"), agentId: z.string() }).openapi("ToolCallWebhook", {
  description:
    "The body POSTed to a tool's execution.webhook, signed with WEBHOOK_SECRET twice: the Standard Webhooks headers (webhook-id: the call's id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>) and x-switchboard-signature (t=<unix seconds>,v1=<hex HMAC-SHA256 of `${t}.${body}`>)",
});

const subscriptionEvent = <T extends string, D extends z.ZodType>(type: T, data: D) => z.object({ type: z.literal(type), timestamp: z.string(), data });
const callData = {
  agentId: z.string(),
  kind: z.enum(["call", "approval"]).openapi({ description: "`approval`: a person's yes/no before a tool runs; answer it with {approved, args?, reason?}" }),
  runId: z.string(),
  toolCallId: z.string().openapi({ description: "The callId to answer with (an approval's own id for an approval)" }),
  toolName: z.string(),
  executionType: z.string(),
};

/** What a webhook subscription receives, by event type (Standard Webhooks: `{type, timestamp, data}`). */
export const SubscriptionEvents = {
  "call.awaiting_input": subscriptionEvent(
    "call.awaiting_input",
    loose({
      ...callData,
      args: z.unknown(),
      status: z.enum(["waiting", "pending"]),
      spaceId: z.string().optional(),
      messageId: z.string().optional(),
      expiresAt: z.string().optional(),
      resultUrl: z.string(),
      callbackUrl: z.string().openapi({ description: "Answers this one call with a POST of {result} or {error}, no other credential needed" }),
      approves: z.string().optional().openapi({ description: "An approval: the call it gates" }),
      escalated: z.boolean().optional().openapi({ description: "The card moved on to another space (onTimeout: escalate)" }),
    }),
  ).openapi("CallAwaitingInputEvent"),
  "call.expired": subscriptionEvent(
    "call.expired",
    loose({ ...callData, expiresAt: z.string().nullable(), error: z.string(), spaceId: z.string().optional(), messageId: z.string().optional() }),
  ).openapi("CallExpiredEvent"),
  "run.completed": subscriptionEvent(
    "run.completed",
    loose({
      agentId: z.string(),
      agentName: z.string(),
      runId: z.string(),
      status: z.literal("completed"),
      finishedAt: z.string(),
      usage: z.unknown(),
      toolCallCount: z.number(),
      spaceIds: z.array(z.string()),
      runUrl: z.string(),
    }),
  ).openapi("RunCompletedEvent"),
  "run.failed": subscriptionEvent(
    "run.failed",
    loose({
      agentId: z.string(),
      agentName: z.string(),
      runId: z.string(),
      status: z.literal("failed"),
      error: z.string().nullable(),
      finishedAt: z.string(),
      usage: z.unknown(),
      toolCallCount: z.number(),
      spaceIds: z.array(z.string()),
      runUrl: z.string(),
    }),
  ).openapi("RunFailedEvent"),
};

const subscriptionSummaries: Record<keyof typeof SubscriptionEvents, string> = {
  "call.awaiting_input": "A call or an approval waits for a person or a service",
  "call.expired": "A pending call expired without an answer",
  "run.completed": "A run completed",
  "run.failed": "A run failed",
};

/** Adds the event schemas to the document's components, and the tool call webhook to its `webhooks`. */
export function registerEventSchemas(registry: OpenAPIHono["openAPIRegistry"]): void {
  registry.register("SpaceEvent", SpaceEvent);
  registry.register("AgentEvent", AgentEvent);
  registry.register("ToolCallWebhook", ToolCallWebhook);
  registry.registerWebhook({
    method: "post",
    path: "toolCall",
    operationId: "toolCallWebhook",
    summary: "A pending tool call pushed to your service",
    description:
      "Sent to a tool's execution.webhook for each external or space call. Verify webhook-signature (any Standard Webhooks library, with the secret whsec_ + base64(WEBHOOK_SECRET)) or x-switchboard-signature, answer with any 2xx (deliveries are at least once: dedupe on webhook-id, the call's id), then post the result to resultUrl or callbackUrl.",
    tags: ["webhooks"],
    security: [],
    request: { body: { content: { "application/json": { schema: ToolCallWebhook } }, required: true } },
    responses: {
      200: { description: "Received" },
      401: { description: "Your service refused the signature; the gateway retries with backoff" },
    },
  });
  for (const [type, schema] of Object.entries(SubscriptionEvents) as [keyof typeof SubscriptionEvents, z.ZodType][]) {
    registry.registerWebhook({
      method: "post",
      path: type,
      operationId: `${type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase())}Webhook`,
      summary: subscriptionSummaries[type],
      description:
        "Sent to each webhook subscription (POST /api/webhooks) that asked for this event, with the Standard Webhooks headers webhook-id (the event's id: dedupe on it), webhook-timestamp and webhook-signature (v1, base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` with the subscription's secret). Any 2xx acknowledges; anything else is retried at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (jittered), then dead-lettered (GET /api/webhooks/dead-letters).",
      tags: ["webhooks"],
      security: [],
      request: { body: { content: { "application/json": { schema } }, required: true } },
      responses: { 200: { description: "Received" } },
    });
  }
}
