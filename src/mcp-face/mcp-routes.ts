/**
 * The MCP server face: `/mcp/spaces/:spaceId` (a space, for the secret key
 * or its members) and `/mcp/agents/:agentId` (one agent, for the secret key,
 * as the agent routes are). Streamable HTTP, every POST answered by a server
 * built for it, so nothing is kept between requests and any isolate can
 * answer: the session id (`face-session.ts`) and a task's id
 * (`face-tasks.ts`) carry what a later request needs. There is no
 * server-initiated stream (GET) and no session to end (DELETE): both answer
 * 405, as the protocol allows.
 *
 * The endpoint checks who may use it before any JSON-RPC is read (401, 403,
 * 404 in the error envelope, as on the REST routes); each tool checks the
 * rest with the REST routes' own helpers. The MCP SDK's server is loaded on
 * the first request to these routes, not at the Worker's start.
 */
import { getAgent } from "../agents/agent-record";
import { requireSpaceAccess } from "../api/authorize";
import { type ApiContext, createRouter } from "../api/context";
import { hopGuard } from "../api/hop-guard";
import type { EntityCaller, SecretCaller } from "../api/route-access";
import { agentNotFound } from "../db/agent-not-found";
import { getDatabase } from "../db/client";
import { getSpace } from "../db/spaces";
import { ApiError, errorEnvelope, forbidden, notFound, unauthorized } from "../errors";
import type { Face } from "./face-context";
import { mcpAuthentication } from "./mcp-authentication";

export const mcpPaths = { space: "/mcp/spaces/:spaceId", agent: "/mcp/agents/:agentId" } as const;

let serverModule: Promise<typeof import("./serve-mcp")> | undefined;

/** The SDK's server and the face's tools, loaded once per isolate on first use (bundle start-up stays as it was). */
function loadServer(): Promise<typeof import("./serve-mcp")> {
  serverModule ??= import("./serve-mcp").catch((error: unknown) => {
    serverModule = undefined;
    throw error;
  });
  return serverModule;
}

function callerOf(c: ApiContext): SecretCaller | EntityCaller {
  const principal = c.get("principal");
  // mcpAuthentication admits only credentials; this only fails closed.
  if (principal.kind === "anonymous") throw unauthorized("Missing credentials");
  return principal;
}

function checkId(name: string, value: string): string {
  if (value.length < 1 || value.length > 100) throw new ApiError(400, "validation_error", `${name}: must be 1 to 100 characters`);
  return value;
}

async function serve(c: ApiContext, caller: SecretCaller | EntityCaller, face: Face): Promise<Response> {
  const { serveMcp } = await loadServer();
  return serveMcp({ c, caller, face });
}

export const mcpRoutes = createRouter();

mcpRoutes.use("/mcp/*", mcpAuthentication);
mcpRoutes.use("/mcp/*", hopGuard);

mcpRoutes.on(["GET", "DELETE"], [mcpPaths.space, mcpPaths.agent], (c) =>
  c.json(
    errorEnvelope("http_error", "This MCP endpoint answers POST only: send each JSON-RPC message with POST (there is no server-initiated stream, and a session needs no ending)"),
    405,
    {
      Allow: "POST",
    },
  ),
);

mcpRoutes.post(mcpPaths.space, async (c) => {
  const spaceId = checkId("spaceId", c.req.param("spaceId"));
  const caller = callerOf(c);
  await requireSpaceAccess(c.env, caller, spaceId);
  if (!(await getSpace(getDatabase(c.env.DB), spaceId))) throw notFound("Space", spaceId);
  return serve(c, caller, { kind: "space", spaceId });
});

mcpRoutes.post(mcpPaths.agent, async (c) => {
  const agentId = checkId("agentId", c.req.param("agentId"));
  const caller = callerOf(c);
  if (caller.kind !== "secret") {
    throw forbidden("The agent endpoint needs the secret key, as the agent routes do; a person reaches an agent through a space it is in: /mcp/spaces/{spaceId}");
  }
  const database = getDatabase(c.env.DB);
  if (!(await getAgent(database, agentId))) throw await agentNotFound(database, agentId);
  return serve(c, caller, { kind: "agent", agentId });
});
