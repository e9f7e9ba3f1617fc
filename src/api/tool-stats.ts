/**
 * `GET /api/agents/:agentId/tool-stats` (secret key): call statistics per
 * tool since the agent was created, kept by its object: calls, failures by
 * kind, latency median and p95 (over each tool's last 500 calls), bytes in
 * and out, cache hits.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { agentStub } from "../agents/agent-stub";
import { getAgent } from "../agents/agent-record";
import { getDatabase } from "../db/client";
import { notFound } from "../errors";
import { createRouter } from "./context";
import { routeAccess } from "./route-access";
import { AgentIdParam, errorResponses, jsonContent } from "./schemas";

const Failures = z.object({ validation: z.number(), timeout: z.number(), upstream: z.number(), permission: z.number(), internal: z.number() }).openapi("ToolFailureCounts");

export const ToolStats = z
  .object({
    toolName: z.string(),
    provider: z.string().openapi({ description: "builtin, tools (configured), or the MCP server's or provider's name" }),
    calls: z.number(),
    failed: z.number(),
    failures: Failures,
    cacheHits: z.number(),
    latencyMs: z.object({ median: z.number(), p95: z.number() }),
    bytesIn: z.number(),
    bytesOut: z.number(),
  })
  .openapi("ToolStats");

const AgentToolStats = ToolStats.extend({ lastCallAt: z.string() }).openapi("AgentToolStats");

export const toolStatsRoutes = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/api/agents/{agentId}/tool-stats",
    operationId: "getAgentToolStats",
    summary: "Call statistics per tool of an agent",
    tags: ["agents"],
    ...routeAccess("secret"),
    request: { params: AgentIdParam },
    responses: { 200: jsonContent(z.object({ tools: z.array(AgentToolStats) }), "Per tool, most called first"), ...errorResponses },
  }),
  async (c) => {
    const { agentId } = c.req.valid("param");
    if (!(await getAgent(getDatabase(c.env.DB), agentId))) throw notFound("Agent", agentId);
    return c.json({ tools: await agentStub(c.env, agentId).toolStats() }, 200);
  },
);
