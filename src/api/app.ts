/**
 * The Worker's HTTP surface: one Hono app, one error handler producing the
 * error envelope `{error: {code, message}}`, the OpenAPI 3.1 document at
 * `/openapi.json`.
 */
import { HTTPException } from "hono/http-exception";
import { ApiError, errorEnvelope } from "../errors";
import { cachedEnvProblems } from "../security/env-problems";
import { agentActivityRoutes } from "./agent-activity";
import { agentRoutes } from "./agents";
import { callbackRoutes } from "./callbacks";
import { operatorRoutes } from "./operator";
import { webhookRoutes } from "./webhooks";
import { deadLetterRoutes } from "./dead-letters";
import { portableAgentRoutes } from "./portable-agents";
import { authentication } from "./authorize";
import { securitySchemes } from "./route-access";
import { discoveryRoutes } from "./discovery";
import { createRouter } from "./context";
import { entityRoutes } from "./entities";
import { registerEventSchemas } from "./event-schemas";
import { fileRoutes } from "./files";
import { healthRoutes } from "./health";
import { hopGuard } from "./hop-guard";
import { idempotency } from "./idempotency";
import { messageRoutes } from "./messages";
import { oauthRoutes } from "./oauth-routes";
import { accountRoutes } from "./accounts";
import { agentConnectionRoutes } from "./agent-connections";
import { nameOperations } from "./operation-names";
import { requestBody } from "./request-body";
import { spaceMemberRoutes } from "./space-members";
import { spaceToolRoutes } from "./space-tools";
import { spaceRoutes } from "./spaces";
import { statsRoutes } from "./stats";
import { streamRoutes } from "./streams";
import { toolResultRoutes } from "./tool-results";
import { toolStatsRoutes } from "./tool-stats";
import { mcpRoutes } from "../mcp-face/mcp-routes";
import { a2aRoutes } from "../a2a/a2a-routes";

export function createApp() {
  const app = createRouter();

  // The deployment's secrets and bindings are checked at an isolate's first request (logged there, reported by /health), then only looked up.
  app.use("*", async (c, next) => {
    if (c.env) cachedEnvProblems(c.env);
    await next();
  });
  app.use("/api/*", authentication);
  app.use("/api/*", requestBody);
  app.use("/api/*", hopGuard);
  // The writes a client may retry (docs/api.md, "Retries and Idempotency-Key").
  for (const path of [
    "/api/entities",
    "/api/agents",
    "/api/agents/import",
    "/api/spaces",
    "/api/spaces/:spaceId/messages",
    "/api/agents/:agentId/inbox",
    "/api/runs/:runId/tool-results",
    "/api/spaces/:spaceId/tool-results",
    "/api/webhooks",
    // Delivering a result again is the one operator action that is not naturally idempotent.
    "/api/pending-tool-calls/:callId/redeliver",
    "/api/webhooks/dead-letters/:deadLetterId/redeliver",
  ]) {
    app.on("POST", path, idempotency);
  }

  app.route("/", healthRoutes);
  app.route("/", discoveryRoutes);
  app.route("/", entityRoutes);
  app.route("/", agentRoutes);
  app.route("/", portableAgentRoutes);
  app.route("/", agentActivityRoutes);
  app.route("/", spaceRoutes);
  app.route("/", spaceToolRoutes);
  app.route("/", spaceMemberRoutes);
  app.route("/", messageRoutes);
  app.route("/", streamRoutes);
  app.route("/", toolResultRoutes);
  app.route("/", callbackRoutes);
  app.route("/", operatorRoutes);
  // Before the subscriptions: `/api/webhooks/{webhookId}` would take `dead-letters` for an id.
  app.route("/", deadLetterRoutes);
  app.route("/", webhookRoutes);
  app.route("/", statsRoutes);
  app.route("/", fileRoutes);
  app.route("/", toolStatsRoutes);
  app.route("/", accountRoutes);
  app.route("/", agentConnectionRoutes);
  // Outside /api: browsers and authorization servers, no gateway credentials (each route is its own).
  app.route("/", oauthRoutes);
  // Outside /api: the MCP server face, JSON-RPC over Streamable HTTP (its own authentication; not in the OpenAPI document).
  app.route("/", mcpRoutes);
  // Outside /api: the Agent2Agent face of agents that enable it, JSON-RPC (its own authentication; not in the OpenAPI document).
  app.route("/", a2aRoutes);

  nameOperations(app.openAPIRegistry);
  registerEventSchemas(app.openAPIRegistry);
  // Each operation's `security` comes from its route's access declaration (route-access.ts): no document-wide default.
  for (const [name, scheme] of Object.entries(securitySchemes)) app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Switchboard",
      version: c.env.SWITCHBOARD_VERSION,
      description: 'An edge gateway where AI agents, people and services meet. Errors: {"error": {"code", "message"}}.',
    },
    // Relative: the document describes the gateway that serves it (and the reference page tries requests there).
    servers: [{ url: "/", description: "The gateway serving this document" }],
  }));

  app.notFound((c) => c.json(errorEnvelope("route_not_found", `No route for ${c.req.method} ${c.req.path}`), 404));

  app.onError((error, c) => {
    if (error instanceof ApiError) return c.json(errorEnvelope(error.code, error.message, error.details), error.status);
    if (error instanceof HTTPException) {
      const status = error.status;
      const code = status === 400 ? "invalid_json" : status === 413 ? "payload_too_large" : status === 415 ? "unsupported_media_type" : "http_error";
      return c.json(errorEnvelope(code, error.message || "Request failed"), status);
    }
    console.error("unhandled error", error);
    return c.json(errorEnvelope("internal_error", "Something went wrong on our side"), 500);
  });

  return app;
}
