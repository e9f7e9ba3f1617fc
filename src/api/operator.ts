/**
 * Operator controls (secret key): pending calls across agents, filtered; a
 * call cancelled (the agent gets a cancellation), expired now, or its result
 * delivered again; a running run aborted. Every action goes through the
 * agent's object and is noted on the run it touched.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq, inArray, lt, type SQL } from "drizzle-orm";
import { agentStub } from "../agents/agent-stub";
import { getAgent } from "../agents/agent-record";
import { getDatabase } from "../db/client";
import { pendingToolCalls } from "../db/schema";
import { ApiError, notFound } from "../errors";
import { getPendingCall } from "../tools";
import { type ApiContext, type ApiEnv, createRouter, newId } from "./context";
import { routeAccess } from "./route-access";
import { AgentIdParam, errorResponses, jsonBody, jsonContent, queryInteger, writeErrorResponses } from "./schemas";

const CallIdParam = z.object({
  callId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "callId", in: "path" } }),
});
const Reason = z
  .object({ reason: z.string().min(1).max(2_000).optional() })
  .strict()
  .openapi("OperatorReason");
const statuses = ["waiting", "pending", "resolved", "expired"] as const;

const ListQuery = z.object({
  status: z
    .enum(statuses)
    .optional()
    .openapi({ param: { name: "status", in: "query" } }),
  agentId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ param: { name: "agentId", in: "query" } }),
  toolName: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ param: { name: "toolName", in: "query" } }),
  kind: z
    .enum(["call", "approval"])
    .optional()
    .openapi({ param: { name: "kind", in: "query" } }),
  olderThanMs: queryInteger("olderThanMs", 0, 366 * 24 * 3600 * 1000),
  limit: queryInteger("limit", 1, 500),
});

const action = (name: "cancel" | "expire" | "redeliver", summary: string, description: string) =>
  createRoute({
    method: "post",
    path: `/api/pending-tool-calls/{callId}/${name}`,
    operationId: `${name}PendingToolCall`,
    summary,
    description,
    tags: ["operator"],
    ...routeAccess("secret"),
    request: { params: CallIdParam, ...jsonBody(Reason) },
    responses: { 200: jsonContent(z.object({ success: z.literal(true), toolCallId: z.string(), status: z.string() }), "Done"), ...writeErrorResponses },
  });

/** One operator action on one call (the route validated `callId` and `reason`). */
async function operate<Env extends ApiEnv>(c: ApiContext<Env>, name: "cancel" | "expire" | "redeliver", callId: string, reason: string | undefined) {
  const database = getDatabase(c.env.DB);
  const call = await getPendingCall(database, callId);
  if (!call) throw notFound("Tool call", callId);
  if (name === "redeliver" && call.kind === "approval") {
    throw new ApiError(409, "conflict", `"${callId}" is an approval: it answers only the cycle that asked for it and cannot be delivered again`);
  }
  // With an Idempotency-Key, a retried redelivery queues the same event (the inbox ignores it the second time).
  const eventId = name === "redeliver" && c.get("idempotency") ? newId(c, "evt") : undefined;
  const { done } = await agentStub(c.env, call.agentId).operateOnCall(call, name, reason ?? "", eventId);
  if (!done) {
    throw new ApiError(
      409,
      "conflict",
      name === "redeliver" ? `Tool call "${callId}" has no result to deliver again (it is ${call.status})` : `Tool call "${callId}" was already ${call.status}`,
    );
  }
  const current = await getPendingCall(database, callId);
  return { success: true as const, toolCallId: callId, status: current?.status ?? call.status };
}

export const operatorRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/pending-tool-calls",
      operationId: "listPendingToolCallsAcrossAgents",
      summary: "List pending calls across agents",
      description: "Filter by status, agent, tool, kind (call or approval) and age; oldest first.",
      tags: ["operator"],
      ...routeAccess("secret"),
      request: { query: ListQuery },
      responses: { 200: jsonContent(z.object({ pendingToolCalls: z.array(z.unknown()) }), "Pending calls, oldest first"), ...errorResponses },
    }),
    async (c) => {
      const { status, agentId, toolName, kind, olderThanMs, limit = 100 } = c.req.valid("query");
      const filters: SQL[] = [];
      if (status) filters.push(eq(pendingToolCalls.status, status));
      else filters.push(inArray(pendingToolCalls.status, ["waiting", "pending"]));
      if (agentId) filters.push(eq(pendingToolCalls.agentId, agentId));
      if (toolName) filters.push(eq(pendingToolCalls.toolName, toolName));
      if (kind) filters.push(eq(pendingToolCalls.kind, kind));
      if (olderThanMs !== undefined) filters.push(lt(pendingToolCalls.createdAt, new Date(Date.now() - olderThanMs).toISOString()));
      const rows = await getDatabase(c.env.DB)
        .select()
        .from(pendingToolCalls)
        .where(and(...filters))
        .orderBy(asc(pendingToolCalls.createdAt))
        .limit(limit);
      return c.json({ pendingToolCalls: rows }, 200);
    },
  )
  .openapi(
    action("cancel", "Cancel a pending call", "The call settles as cancelled; its card shows it; the agent gets the cancellation as a tool error. 409 if it had already settled."),
    async (c) => c.json(await operate(c, "cancel", c.req.valid("param").callId, c.req.valid("json").reason), 200),
  )
  .openapi(action("expire", "Expire a pending call now", "As if its expiry had passed: the card shows the error, the agent hears, later results get 410."), async (c) =>
    c.json(await operate(c, "expire", c.req.valid("param").callId, c.req.valid("json").reason), 200),
  )
  .openapi(action("redeliver", "Deliver a settled call's result again", "Puts the result (or the expiry) in the agent's inbox once more, as a new tool_result event."), async (c) =>
    c.json(await operate(c, "redeliver", c.req.valid("param").callId, c.req.valid("json").reason), 200),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/agents/{agentId}/abort",
      operationId: "abortAgentRun",
      summary: "Abort the agent's running run",
      description:
        "A running cycle stops now and its run fails (events kept on the record, pending calls still answerable); a run waiting to retry fails at once. 409 when nothing runs.",
      tags: ["operator"],
      ...routeAccess("secret"),
      request: { params: AgentIdParam, ...jsonBody(Reason) },
      responses: { 200: jsonContent(z.object({ aborted: z.literal(true), runId: z.string() }), "Aborted"), ...writeErrorResponses },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      const { reason } = c.req.valid("json");
      if (!(await getAgent(getDatabase(c.env.DB), agentId))) throw notFound("Agent", agentId);
      const result = await agentStub(c.env, agentId).abortRun(reason ?? "no reason given");
      if (!result.aborted || !result.runId) throw new ApiError(409, "conflict", `Agent "${agentId}" has no run to abort`);
      return c.json({ aborted: true as const, runId: result.runId }, 200);
    },
  );
