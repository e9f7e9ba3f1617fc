/**
 * The Agent2Agent (A2A 1.0) face of agents that enable it (`a2a.enabled` in
 * their config; docs/a2a.md): the Agent Card at
 * `GET /a2a/agents/:agentId/.well-known/agent-card.json` (public, as
 * discovery needs) and the JSON-RPC endpoint `POST /a2a/agents/:agentId`,
 * for the API's credentials (the secret key, or a person's JWT; a bearer
 * alone is enough, as on the MCP face; a person only if the config's
 * `a2a.people` names them: else 403). An agent that does not exist or has
 * not enabled the face is 404 in the error envelope on both. The JSON-RPC
 * handling is loaded with `import()` on the first request, not at the
 * Worker's start. `POST /a2a/callbacks/:token` takes pushes from remote
 * agents the gateway calls as tools (`remote-task-pushes.ts`).
 */
import { type AgentRecord, getAgent } from "../agents/agent-record";
import { type ApiContext, createRouter } from "../api/context";
import { hopGuard } from "../api/hop-guard";
import { getDatabase } from "../db/client";
import { ApiError, errorEnvelope, forbidden, unauthorized } from "../errors";
import { mcpAuthentication } from "../mcp-face/mcp-authentication";
import { a2aPaths, agentCard } from "./agent-card";
import { type A2aCaller, mayStart } from "./conversation";
import { receiveRemotePush } from "./remote-task-pushes";
import { a2aCallbackPath } from "../tools";

let serverModule: Promise<typeof import("./serve-a2a")> | undefined;

function loadServer(): Promise<typeof import("./serve-a2a")> {
  serverModule ??= import("./serve-a2a").catch((error: unknown) => {
    serverModule = undefined;
    throw error;
  });
  return serverModule;
}

/** The agent, if it exists and answers A2A; else 404 (a disabled agent is not told apart from a missing one). */
async function enabledAgent(c: ApiContext): Promise<AgentRecord> {
  const agentId = c.req.param("agentId") ?? "";
  const agent = agentId.length > 0 && agentId.length <= 100 ? await getAgent(getDatabase(c.env.DB), agentId) : undefined;
  if (!agent?.config.a2a?.enabled) throw new ApiError(404, "not_found", `No agent "${agentId}" answers A2A here`);
  return agent;
}

function callerOf(c: ApiContext): A2aCaller {
  const principal = c.get("principal");
  if (principal.kind === "anonymous") throw unauthorized("Missing credentials");
  return principal;
}

export const a2aRoutes = createRouter();

// Pushes from remote agents this gateway calls as tools (the other direction; the token is the credential).
a2aRoutes.post(`${a2aCallbackPath}:token`, receiveRemotePush);

a2aRoutes.get(a2aPaths.card, async (c) => {
  const agent = await enabledAgent(c);
  return c.json(agentCard(agent, new URL(c.req.url).origin), 200, { "cache-control": "no-cache" });
});

a2aRoutes.use(a2aPaths.endpoint, mcpAuthentication);
a2aRoutes.use(a2aPaths.endpoint, hopGuard);

a2aRoutes.on(["GET", "PUT", "PATCH", "DELETE"], a2aPaths.endpoint, (c) => c.json(errorEnvelope("http_error", "Send each JSON-RPC request with POST"), 405, { Allow: "POST" }));

a2aRoutes.post(a2aPaths.endpoint, async (c) => {
  const caller = callerOf(c);
  const agent = await enabledAgent(c);
  if (!mayStart(agent, caller))
    throw forbidden(`Entity "${caller.kind === "entity" ? caller.entityId : ""}" may not talk to agent "${agent.id}" over A2A: its config's a2a.people does not name it`);
  const { serveA2a } = await loadServer();
  return serveA2a({ c, caller, agent });
});
