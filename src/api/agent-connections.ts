/**
 * `POST /api/agents/{agentId}/connections`: an operator connects an agent's
 * own account, once, for a tool whose `auth` says `owner: "agent"` and
 * gives no client secret (with one, the agent's token comes from the client
 * credentials grant and there is nothing to connect). Named by the tool
 * (`tool`), the MCP server (`server`) or the OpenAPI source (`provider`).
 * The answer is the start link: the operator opens it, signs in at the
 * service as the account the agent should use, and the callback stores the
 * tokens under the agent's entity (`GET /api/connections?entityId=…` lists
 * it; `DELETE /api/connections/…` revokes it).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { beginAccountFlow } from "../accounts/begin-account-flow";
import { flowLifetimeMs } from "../accounts/flow-store";
import { AccountsKeysError } from "../accounts/token-cipher";
import { getAgent } from "../agents/agent-record";
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { ApiError, notFound } from "../errors";
import { agentAccountTarget, registrationFor } from "../tools";
import { createRouter, validationError } from "./context";
import { routeAccess } from "./route-access";
import { AgentIdParam, ErrorResponse, jsonBody, jsonContent, writeErrorResponses } from "./schemas";

const ConnectAgentAccount = z
  .object({
    tool: z.string().min(1).max(128).optional().openapi({ description: "A configured gateway tool whose auth says owner agent" }),
    server: z.string().min(1).max(32).optional().openapi({ description: "An MCP server (mcp.servers[].name) whose auth says owner agent" }),
    provider: z.string().min(1).max(32).optional().openapi({ description: "An OpenAPI source (providers[].name) whose auth says owner agent" }),
  })
  .strict()
  .openapi("ConnectAgentAccount", { description: "Exactly one of tool, server or provider" });

const AgentAccountLink = z
  .object({
    flowId: z.string(),
    entityId: z.string().openapi({ description: "The agent's entity: whose account it becomes" }),
    connectionKey: z.string().openapi({ description: "The connection: the tool's or source's origin, or the MCP server's URL" }),
    service: z.string(),
    scopes: z.array(z.string()),
    expiresAt: z.string().openapi({ description: "The link works until then (15 minutes)" }),
    startUrl: z.string().openapi({ description: "Open it in a browser and sign in as the account the agent should use: it works once, in one browser" }),
  })
  .openapi("AgentAccountLink");

/** Where people and authorization servers reach the gateway: `PUBLIC_URL`, else this request's origin. */
function gatewayOrigin(env: AppEnv, requestUrl: string): string {
  const configured = env.PUBLIC_URL;
  return new URL(typeof configured === "string" && configured !== "" ? configured : requestUrl).origin;
}

export const agentConnectionRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/api/agents/{agentId}/connections",
    operationId: "connectAgentAccount",
    summary: "Connect an agent's own account (operators)",
    tags: ["agents"],
    ...routeAccess("secret"),
    description:
      "For a tool, MCP server or OpenAPI source whose `auth` says `owner: \"agent\"` without a client secret: a one-time link that connects the account the agent uses there. Open it, sign in as that account, and the callback stores its tokens under the agent's entity. 400 when what is named takes no such account (no auth, a person's, or the client credentials grant); 404 when the agent or what is named does not exist.",
    request: { params: AgentIdParam, ...jsonBody(ConnectAgentAccount) },
    responses: {
      201: jsonContent(AgentAccountLink, "The link to open"),
      ...writeErrorResponses,
      502: jsonContent(ErrorResponse, "The service's authorization server cannot be used"),
      503: jsonContent(ErrorResponse, "ACCOUNTS_KEYS is missing or malformed"),
    },
  }),
  async (c) => {
    const { agentId } = c.req.valid("param");
    const naming = c.req.valid("json");
    const named = [naming.tool, naming.server, naming.provider].filter((value) => value !== undefined).length;
    if (named !== 1) throw validationError([{ path: [], message: "Name exactly one of tool, server or provider" }], "body");
    const agent = await getAgent(getDatabase(c.env.DB), agentId);
    if (agent === undefined) throw notFound("Agent", agentId);
    const target = await agentAccountTarget(agent.config, agent.entityId, naming, c.env);
    if (!target.ok) throw new ApiError(target.status, target.status === 404 ? "not_found" : target.status === 502 ? "authorization_error" : "validation_error", target.message);
    const authority = await target.authority();
    if (!authority.ok) throw new ApiError(502, "authorization_error", `The authorization server cannot be used: ${authority.error}`);
    const origin = gatewayOrigin(c.env, c.req.url);
    const scopes = authority.discovery.scopes;
    const registration = await registrationFor(target.auth, authority.discovery, origin, c.env, scopes);
    if (!registration.ok) throw new ApiError(502, "authorization_error", `The gateway cannot sign in there: ${registration.error.message}`);
    let began: Awaited<ReturnType<typeof beginAccountFlow>>;
    try {
      began = await beginAccountFlow(c.env, {
        entityId: agent.entityId,
        connectionKey: target.account.connectionKey,
        serviceName: target.account.serviceName,
        gatewayOrigin: origin,
        discovery: authority.discovery,
        registration: registration.value,
        scopes,
        lifetimeMs: flowLifetimeMs,
      });
    } catch (error) {
      if (error instanceof AccountsKeysError) throw new ApiError(503, "misconfigured", error.message);
      throw error;
    }
    if (!began.ok) throw new ApiError(502, "authorization_error", began.error.message);
    return c.json(
      {
        flowId: began.value.flowId,
        entityId: agent.entityId,
        connectionKey: target.account.connectionKey,
        service: target.account.serviceName,
        scopes,
        expiresAt: began.value.expiresAt,
        startUrl: began.value.startUrl,
      },
      201,
    );
  },
);
