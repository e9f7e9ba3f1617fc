/**
 * What an agent did and holds (secret key): runs, its goals, memories,
 * plans and pending calls, the inbox route, and the agent's own event stream.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq, inArray } from "drizzle-orm";
import { callbackUrl } from "../security/callback-token";
import { agentStub } from "../agents/agent-stub";
import { listGoals } from "../knowledge/goals";
import { listMemories } from "../knowledge/memories";
import { listPlans } from "../knowledge/plans";
import { getAgent } from "../agents/agent-record";
import { agentNotFound } from "../db/agent-not-found";
import { getDatabase } from "../db/client";
import { getRun, listRuns } from "../db/runs";
import { withRunTrees } from "../db/run-trees";
import { pendingToolCalls } from "../db/schema";
import { notFound } from "../errors";
import { createRouter, newId } from "./context";
import { AgentEvent } from "./event-schemas";
import { AgentIdParam, errorResponses, ErrorResponse, jsonBody, jsonContent, queryInteger, RunIdParam, writeErrorResponses } from "./schemas";
import { routeAccess } from "./route-access";
import { AfterSeqParam, checkStreamRequest, streamRequest } from "./streams";
import { ToolStats } from "./tool-stats";
import { runToolStats } from "../tools";
import type { Run as RunRecord } from "../db/runs";
import type { AppEnv } from "../env";
import { traceparentHeader, traceparentOf } from "../telemetry/trace-context";

/** A run with its tool calls summed up per tool (the numbers on the run record). */
const withToolStats = <R extends RunRecord>(run: R) => ({ ...run, toolStats: runToolStats(run.toolCalls) });

const Run = z
  .object({
    id: z.string(),
    agentId: z.string(),
    agentEntityId: z.string(),
    status: z.enum(["running", "completed", "failed", "interrupted"]),
    trigger: z.unknown(),
    steps: z.array(z.unknown()),
    toolCalls: z.array(z.unknown()),
    usage: z.unknown(),
    error: z.string().nullable(),
    notes: z.array(z.object({ at: z.string(), kind: z.string(), message: z.string() })),
    d1Statements: z.number().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    parentRunId: z.string().nullable().openapi({ description: "The run whose sub-agent call gave this run its task; null for any other run" }),
    childRunIds: z.array(z.string()).openapi({ description: "The runs of the sub-agent tasks this run gave, oldest first" }),
    totalUsage: z.unknown().openapi({ description: "This run's usage with the usage of every sub-agent run under it added (`usage` is the run's own)" }),
    /** `GET /api/runs/:runId` only: the run's calls still waiting for an answer, with their callback URLs. */
    pendingCalls: z
      .array(
        z.object({
          toolCallId: z.string(),
          kind: z.enum(["call", "approval"]),
          toolName: z.string(),
          status: z.string(),
          expiresAt: z.string().nullable(),
          callbackUrl: z.string(),
        }),
      )
      .optional(),
    toolStats: z.array(ToolStats).openapi({ description: "The run's tool calls summed up per tool" }),
  })
  .openapi("Run");

const InboxPush = z
  .object({ type: z.literal("external"), data: z.unknown() })
  .strict()
  .openapi("InboxPush");

async function requireAgent(env: AppEnv, agentId: string) {
  const database = getDatabase(env.DB);
  const agent = await getAgent(database, agentId);
  if (!agent) throw await agentNotFound(database, agentId);
  return agent;
}

/**
 * A run as `GET /api/runs/:runId` shows it (the MCP face's `get_run` too):
 * the record, its tool statistics, and the calls that still wait for an
 * answer, each with a callback URL a service can answer with one POST.
 */
export async function runRecord(env: AppEnv, requestOrigin: string, runId: string) {
  const database = getDatabase(env.DB);
  const run = await getRun(database, runId);
  if (!run) return undefined;
  const open = await database
    .select()
    .from(pendingToolCalls)
    .where(and(eq(pendingToolCalls.runId, runId), inArray(pendingToolCalls.status, ["waiting", "pending"])));
  const origin = (typeof env.PUBLIC_URL === "string" && env.PUBLIC_URL) || requestOrigin;
  const pendingCalls = await Promise.all(
    open.map(async (call) => ({
      toolCallId: call.toolCallId,
      kind: call.kind,
      toolName: call.toolName,
      status: call.status,
      expiresAt: call.expiresAt,
      callbackUrl: await callbackUrl(env.WEBHOOK_SECRET, origin, call.toolCallId, call.expiresAt),
    })),
  );
  const [withTree] = await withRunTrees(database, [run]);
  return { ...withToolStats(withTree), pendingCalls };
}

const listRoute = <Q extends z.ZodObject>(path: string, name: string, schema: z.ZodType, query: Q) =>
  createRoute({
    method: "get",
    path,
    tags: ["agents"],
    ...routeAccess("secret"),
    request: { params: AgentIdParam, query },
    responses: { 200: jsonContent(z.object({ [name]: z.array(schema) }), `The agent's ${name}`), ...errorResponses },
  });

const noQuery = z.object({});

export const agentActivityRoutes = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/api/runs/{runId}",
      tags: ["runs"],
      ...routeAccess("secret"),
      request: { params: RunIdParam },
      responses: { 200: jsonContent(Run, "The cycle: status, trigger, steps, tool calls, usage, error"), ...errorResponses },
    }),
    async (c) => {
      const { runId } = c.req.valid("param");
      const record = await runRecord(c.env, new URL(c.req.url).origin, runId);
      if (!record) throw notFound("Run", runId);
      return c.json(record, 200);
    },
  )
  .openapi(listRoute("/api/agents/{agentId}/runs", "runs", Run, z.object({ limit: queryInteger("limit", 1, 200) })), async (c) => {
    const { agentId } = c.req.valid("param");
    await requireAgent(c.env, agentId);
    const { limit = 20 } = c.req.valid("query");
    const database = getDatabase(c.env.DB);
    return c.json({ runs: (await withRunTrees(database, await listRuns(database, agentId, limit))).map(withToolStats) }, 200);
  })
  .openapi(listRoute("/api/agents/{agentId}/goals", "goals", z.unknown(), noQuery), async (c) => {
    const { agentId } = c.req.valid("param");
    await requireAgent(c.env, agentId);
    return c.json({ goals: await listGoals({ database: getDatabase(c.env.DB), agentId }) }, 200);
  })
  .openapi(listRoute("/api/agents/{agentId}/memories", "memories", z.unknown(), noQuery), async (c) => {
    const { agentId } = c.req.valid("param");
    await requireAgent(c.env, agentId);
    return c.json({ memories: await listMemories({ database: getDatabase(c.env.DB), agentId }) }, 200);
  })
  .openapi(listRoute("/api/agents/{agentId}/plans", "plans", z.unknown(), noQuery), async (c) => {
    const { agentId } = c.req.valid("param");
    await requireAgent(c.env, agentId);
    return c.json({ plans: await listPlans({ database: getDatabase(c.env.DB), agentId }) }, 200);
  })
  .openapi(
    listRoute(
      "/api/agents/{agentId}/pending-tool-calls",
      "pendingToolCalls",
      z.unknown(),
      z.object({
        status: z
          .enum(["waiting", "pending", "resolved", "expired"])
          .optional()
          .openapi({ param: { name: "status", in: "query" } }),
        limit: queryInteger("limit", 1, 500),
      }),
    ),
    async (c) => {
      const { agentId } = c.req.valid("param");
      await requireAgent(c.env, agentId);
      const { status, limit = 100 } = c.req.valid("query");
      const rows = await getDatabase(c.env.DB)
        .select()
        .from(pendingToolCalls)
        .where(status ? and(eq(pendingToolCalls.agentId, agentId), eq(pendingToolCalls.status, status)) : eq(pendingToolCalls.agentId, agentId))
        .orderBy(desc(pendingToolCalls.createdAt))
        .limit(limit);
      return c.json({ pendingToolCalls: rows }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/api/agents/{agentId}/inbox",
      tags: ["agents"],
      ...routeAccess("secret"),
      request: { params: AgentIdParam, ...jsonBody(InboxPush) },
      responses: { 202: jsonContent(z.object({ eventId: z.string() }), "Queued; the agent wakes"), ...writeErrorResponses },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      await requireAgent(c.env, agentId);
      const { data } = c.req.valid("json");
      const hop = c.get("hop");
      // With an Idempotency-Key the event id is derived from it: the inbox ignores a retry.
      const { eventId } = await agentStub(c.env, agentId).deliver(
        { type: "external", data, ...(hop > 0 && { hop }), ...traceparentOf(c.req.header(traceparentHeader)) },
        c.get("idempotency") ? newId(c, "evt") : undefined,
        new URL(c.req.url).origin,
      );
      return c.json({ eventId }, 202);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{agentId}/stream",
      tags: ["streams"],
      ...routeAccess("secret"),
      description:
        "The agent's own events (secret key): inbox, cycles, text deltas, every tool call with full args and results, external calls to execute. WebSocket or SSE; afterSeq replays.",
      request: { params: AgentIdParam, query: z.object({ afterSeq: AfterSeqParam }) },
      responses: {
        101: { description: "WebSocket: one JSON event per text frame" },
        200: { description: "SSE: `id: <seq>` and `data: <event JSON>` per event", content: { "text/event-stream": { schema: AgentEvent } } },
        426: jsonContent(ErrorResponse, "Neither a WebSocket upgrade nor an SSE request"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { agentId } = c.req.valid("param");
      await requireAgent(c.env, agentId);
      checkStreamRequest(c.req.raw);
      return agentStub(c.env, agentId).fetch(streamRequest(c.req.raw, c.get("caller"), {})) as unknown as ReturnType<typeof c.json>;
    },
  );
