/**
 * Tools that act as their agent (`auth.owner: "agent"`): one token for the
 * agent, whatever started the run. With a client secret it comes from the
 * client credentials grant (asked for once, kept sealed under the agent's
 * entity, used by every call); without one, an operator connects it once
 * (`POST /api/agents/{agentId}/connections`), and until then a call fails
 * saying so, without a card.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Browser, recorded } from "../../support/accounts";
import { callJson, createHuman, memberHeaders, secret } from "../../support/api";
import { createAgent, scriptedConfig, settledRuns } from "../../support/agents";
import { fakeJson, providerWorld } from "../../support/provider-world";
import { enter, skip, toolWorld } from "../../support/tool-world";

const issuer = "https://auth.test";
const endpoints = { issuer, authorizationUrl: `${issuer}/authorize`, tokenUrl: `${issuer}/token` };
const withSecret = (clientId = "switchboard-agent") => ({
  type: "oauth",
  owner: "agent",
  scope: "files:read",
  ...endpoints,
  client: { clientId, clientSecret: "${env.AGENT_CLIENT_SECRET}" },
  service: "Files",
});
const byOperator = { type: "oauth", owner: "agent", scope: "files:read", ...endpoints, client: { clientId: "switchboard-test" }, service: "Files" };

const filesTool = (id: string, auth: Record<string, unknown>) => ({
  name: "teamFiles",
  description: "Lists the team's files",
  executionType: "gateway",
  inputSchema: { type: "object", properties: {} },
  execution: { url: `http://api.test/as-person/${id}`, method: "GET", auth },
});

/** The client credentials grants the fake token endpoint saw for `clientId` (each test names its own client). */
async function grantsFor(clientId: string) {
  const clientOf = (authorization: string | undefined) => (authorization?.startsWith("Basic ") ? atob(authorization.slice("Basic ".length)).split(":")[0] : undefined);
  return (await recorded("auth-token")).filter((entry) => entry.body.includes("grant_type=client_credentials") && clientOf(entry.headers.authorization) === clientId);
}

type Connection = { entityId: string; connectionKey: string; scopes: string[] };

describe("an agent's own account by the client credentials grant", () => {
  it("a run no person started uses the agent's token; one grant serves both calls; the connection is the agent's", async () => {
    const id = crypto.randomUUID();
    const clientId = `agent-${id.slice(0, 8)}`;
    const world = await toolWorld([filesTool(id, withSecret(clientId))], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "teamFiles", args: {} }, { name: "teamFiles", args: {} }, skip] },
    ]);
    await world.wake();
    const runs = await settledRuns(world.agent.id);
    const calls = runs[0].toolCalls.filter((call) => call.toolName === "teamFiles");
    expect(calls.map((call) => call.status)).toEqual(["completed", "completed"]);
    expect(calls[0].result).toEqual({ ok: true, id });
    const sent = await recorded(`as-person-${id}`);
    expect(sent).toHaveLength(2);
    expect(sent[0].headers.authorization.startsWith(`Bearer at-cc-${clientId}-`)).toBe(true);
    expect(sent[1].headers.authorization).toBe(sent[0].headers.authorization);
    expect(await grantsFor(clientId)).toHaveLength(1);
    const { body } = await secret<{ connections: Connection[] }>(`/api/connections?entityId=${world.agent.entityId}`);
    expect(body.connections).toEqual([expect.objectContaining({ entityId: world.agent.entityId, connectionKey: "http://api.test", scopes: ["files:read"] })]);
    world.close();
  });

  it("a wrong client secret fails the call with the server's refusal, and nothing reaches the service", async () => {
    const id = crypto.randomUUID();
    const wrong = { ...withSecret(), client: { clientId: "switchboard-agent", clientSecret: "${env.TOOL_API_TOKEN}" } };
    const world = await toolWorld([filesTool(id, wrong)], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "teamFiles", args: {} }, skip] }]);
    await world.wake();
    const runs = await settledRuns(world.agent.id);
    const result = runs[0].toolCalls.find((call) => call.toolName === "teamFiles")?.result as { error: string };
    expect(result.error).toMatch(/^Files gave this agent no token \(A token could not be granted for this account: The client credentials grant failed/);
    expect(result.error).toContain("an operator checks the client id and secret");
    expect(result.error).toContain("unknown client");
    expect(await recorded(`as-person-${id}`)).toEqual([]);
    world.close();
  });

  it("an MCP server as the agent: listed and called over the agent's own connection", async () => {
    const id = crypto.randomUUID();
    const server = { name: "notes", url: `http://mcp.test/person/${id}`, auth: { ...withSecret(), service: "Notes" } };
    const world = await providerWorld({ mcp: { servers: [server] } }, () => [{ toolCalls: [{ name: "notes__whoami", args: {} }, skip] }]);
    await world.wake();
    const runs = await settledRuns(world.agent.id);
    const call = runs[0].toolCalls.find((entry) => entry.toolName === "notes__whoami");
    expect(call).toMatchObject({ status: "completed", result: { text: expect.stringContaining(id) } });
    const bearers = await fakeJson<(string | null)[]>(`http://mcp.test/person-seen/${id}`);
    expect(bearers.length).toBeGreaterThan(0);
    expect(bearers.every((bearer) => bearer?.startsWith("at-cc-switchboard-agent-"))).toBe(true);
    world.close();
  });
});

describe("an agent's own account an operator connects", () => {
  it("until connected a call fails saying how to connect it (no card); the operator's link connects it; then calls carry its token", async () => {
    const id = crypto.randomUUID();
    const world = await toolWorld([filesTool(id, byOperator)], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "teamFiles", args: {} }, skip] },
      { toolCalls: [enter(spaceId), { name: "teamFiles", args: {} }, skip] },
    ]);
    await world.wake();
    const first = await settledRuns(world.agent.id);
    const refused = first[0].toolCalls.find((call) => call.toolName === "teamFiles")?.result as { error: string };
    expect(refused.error).toContain(`POST /api/agents/${world.agent.id}/connections {"tool": "teamFiles"}`);
    expect(world.agentStream.ofType("tool.pending")).toEqual([]);

    const link = await secret<{ startUrl: string; entityId: string; connectionKey: string; service: string; scopes: string[] }>(`/api/agents/${world.agent.id}/connections`, {
      body: { tool: "teamFiles" },
    });
    expect(link.status).toBe(201);
    expect(link.body).toMatchObject({ entityId: world.agent.entityId, connectionKey: "http://api.test", service: "Files", scopes: ["files:read"] });
    const browser = new Browser();
    const started = await browser.get(link.body.startUrl);
    expect(started.status).toBe(302);
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
    const connected = await browser.get(`http://gateway.test/oauth/callback?${new URLSearchParams({ code: "good-code", state, iss: issuer })}`, { accept: "application/json" });
    expect(connected.status).toBe(200);

    await world.wake();
    await expect.poll(async () => (await settledRuns(world.agent.id)).length, { timeout: 15_000 }).toBe(2);
    const runs = await settledRuns(world.agent.id);
    const second = runs.find((run) => run.id !== first[0].id);
    expect(second?.toolCalls.find((call) => call.toolName === "teamFiles")).toMatchObject({ status: "completed", result: { ok: true, id } });
    expect((await recorded(`as-person-${id}`)).map((request) => request.headers.authorization)).toEqual([expect.stringMatching(/^Bearer at-/)]);
    world.close();
  });

  it("refuses what takes no such account, names exactly one thing, and is the operators' alone", async () => {
    const personTool = { ...filesTool("x", { ...byOperator, owner: "person" }), name: "myFiles" };
    const agent = await createAgent(
      scriptedConfig([], {
        tools: [filesTool("x", byOperator), { ...filesTool("y", withSecret()), name: "ccFiles" }, personTool],
        mcp: { servers: [{ name: "open", url: "http://mcp.test/mcp" }] },
      }),
    );
    const post = (body: unknown) => secret<{ error: { code: string; message: string } }>(`/api/agents/${agent.id}/connections`, { body });
    expect(await post({})).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } });
    expect(await post({ tool: "teamFiles", server: "open" })).toMatchObject({ status: 400, body: { error: { code: "validation_error" } } });
    expect(await post({ tool: "nope" })).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    expect(await post({ tool: "myFiles" })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('owner "person"') } } });
    expect(await post({ tool: "ccFiles" })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining("client credentials") } } });
    expect(await post({ server: "open" })).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining("has no auth") } } });
    expect(await secret(`/api/agents/agt_missing/connections`, { body: { tool: "teamFiles" } })).toMatchObject({ status: 404 });
    const person = await callJson(`/api/agents/${agent.id}/connections`, { body: { tool: "teamFiles" }, headers: await memberHeaders(await createHuman("Olive")) });
    expect(person.status).toBe(403);
    expect(env.AGENT_CLIENT_SECRET).toBe("agent-secret");
  });
});
