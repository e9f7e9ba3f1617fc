/**
 * An MCP server whose tools act as a person (`auth` on the server): each
 * person's own connection carries their token (and only theirs); before
 * they connect, the declared tools are offered and a call waits on a card
 * for them, resumes once when they connect (also after the agent object was
 * killed), and the token is in no record, event, message or row.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConnectionStore } from "../../../src/accounts/connection-store";
import { tokenCipherFor } from "../../../src/accounts/token-cipher";
import { getDatabase } from "../../../src/db/client";
import { AgentEvent } from "../../../src/api/event-schemas";
import { McpServerConfig } from "../../../src/tools/config/mcp-server-config";
import { type AccountCard, everythingStored, fakeIssuer, fakeOAuth, pendingStatus, personConnects } from "../../support/accounts";
import { createHuman, postMessage, secret } from "../../support/api";
import { agentObject, scriptedConfig, settledRuns, waitForRuns } from "../../support/agents";
import { fakeJson, providerWorld } from "../../support/provider-world";
import { openSse } from "../../support/stream-client";
import { enter, skip } from "../../support/tool-world";

const issuer = fakeIssuer;
const auth = fakeOAuth({ scope: "notes:read", service: "Notes", tools: [{ name: "whoami", description: "Says whose token came" }] });

const serverUrl = (id: string) => `http://mcp.test/person/${id}`;
const server = (id: string, overrides: Record<string, unknown> = {}) => ({ name: "notes", url: serverUrl(id), auth, ...overrides });

async function connect(entityId: string, id: string, accessToken: string) {
  const store = new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
  await store.save(
    { entityId, connectionKey: serverUrl(id) },
    { accessToken, scopes: ["notes:read"], tokenType: "Bearer", expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
    { issuer, clientId: "switchboard-test" },
  );
}

const bearers = (id: string) => fakeJson<(string | null)[]>(`http://mcp.test/person-seen/${id}`);

/** A person's message starts a run that calls `notes__whoami` once. */
async function personWorld(id: string, overrides: Record<string, unknown> = {}) {
  const world = await providerWorld({ mcp: { servers: [server(id, overrides)] } }, (spaceId) => [
    { toolCalls: [enter(spaceId), { name: "notes__whoami", args: {} }, skip] },
    { toolCalls: [skip] },
  ]);
  return { ...world, ask: () => postMessage(world.spaceId, world.person, "who am I at Notes?") };
}

describe("the auth config of an MCP server", () => {
  const problemsOf = (overrides: Record<string, unknown>) => {
    const parsed = McpServerConfig.safeParse(server("config", overrides));
    return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  };

  it("takes discovery (no issuer, no endpoints), an issuer, or endpoints", () => {
    expect(problemsOf({})).toEqual([]);
    expect(problemsOf({ auth: { type: "oauth", owner: "person" } })).toEqual([]);
    expect(problemsOf({ auth: { type: "oauth", owner: "person", issuer } })).toEqual([]);
  });

  it("refuses, naming the path: an Authorization header beside it, an unknown owner, half the endpoints, a bad declared tool", () => {
    expect(problemsOf({ headers: { Authorization: "Bearer ${env.API_KEY}" } })).toEqual([expect.stringMatching(/^headers\.Authorization: .*person's token/)]);
    expect(problemsOf({ auth: { ...auth, owner: "agent" } })).toEqual([]);
    expect(problemsOf({ auth: { ...auth, owner: "robot" } })).toEqual([expect.stringMatching(/^auth\.owner: /)]);
    expect(problemsOf({ auth: { type: "oauth", owner: "person", tokenUrl: `${issuer}/token` } })).toEqual([expect.stringMatching(/^auth\.authorizationUrl: /)]);
    expect(problemsOf({ auth: { ...auth, tools: [{ name: "" }] } })).toEqual([expect.stringMatching(/^auth\.tools\.0\.name: /)]);
  });

  it("an agent saved with an Authorization header beside auth is a 400 that names the path", async () => {
    const config = scriptedConfig([], { mcp: { servers: [server("config", { headers: { Authorization: "Bearer ${env.API_KEY}" } })] } });
    const { status, body } = await secret<{ error: { message: string } }>("/api/agents", { body: { config } });
    expect(status).toBe(400);
    expect(body.error.message).toMatch(/mcp\.servers\.0\.headers\.Authorization/);
  });
});

describe("a connected person", () => {
  it("their connection carries their token, and only theirs: the token is in no record, event, message or row", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(id);
    const token = `at-secret-${crypto.randomUUID()}`;
    await connect(world.person, id, token);
    await world.ask();
    const runs = await settledRuns(world.agent.id);
    const call = runs[0].toolCalls.find((entry) => entry.toolName === "notes__whoami");
    expect(call).toMatchObject({ status: "completed", result: { text: JSON.stringify({ id, tokenEnds: token.slice(-4) }) } });
    const seen = await bearers(id);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([token]));
    const connected = world.agentStream.ofType("mcp.server.connected");
    expect(connected.at(-1)?.data).toMatchObject({ server: "notes", tools: ["notes__whoami"] });

    const { body: messages } = await secret(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    const everywhere = JSON.stringify([runs, messages, world.agentStream.frames, world.spaceStream.frames, await everythingStored(world.agent.id)]);
    expect(everywhere).toContain(id);
    expect(everywhere).not.toContain(token);
    world.close();
  });

  it("two people, two connections: each call carries its own person's token", async () => {
    const id = crypto.randomUUID();
    const world = await providerWorld({ mcp: { servers: [server(id)] } }, (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "notes__whoami", args: {} }, skip] },
      { toolCalls: [enter(spaceId), { name: "notes__whoami", args: {} }, skip] },
    ]);
    const other = await createHuman("Quinn");
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: other } });
    await connect(world.person, id, "at-first-AAAA");
    await connect(other, id, "at-second-BBBB");
    await postMessage(world.spaceId, world.person, "who am I?");
    await settledRuns(world.agent.id);
    await postMessage(world.spaceId, other, "and me?");
    await waitForRuns(world.agent.id, 2);
    const runs = await settledRuns(world.agent.id, 15_000);
    const answers = runs.map((run) => run.toolCalls.find((entry) => entry.toolName === "notes__whoami")?.result);
    expect(answers).toEqual(expect.arrayContaining([{ text: JSON.stringify({ id, tokenEnds: "AAAA" }) }, { text: JSON.stringify({ id, tokenEnds: "BBBB" }) }]));
    world.close();
  });
});

describe("a person who has not connected", () => {
  async function waitingCall(id: string, overrides: Record<string, unknown> = {}) {
    const world = await personWorld(id, overrides);
    await world.ask();
    const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "notes__whoami");
    const { toolCallId, account, executionType } = pending.data as { toolCallId: string; account: AccountCard; executionType: string };
    return { world, toolCallId, account, executionType, pending };
  }

  it("the declared tools are offered, and the call waits on a card for that person, with the service and scopes", async () => {
    const id = crypto.randomUUID();
    const { world, toolCallId, account, executionType, pending } = await waitingCall(id);
    expect(world.agentStream.ofType("mcp.server.account_needed")[0]?.data).toMatchObject({ server: "notes", tools: ["notes__whoami"] });
    expect(executionType).toBe("mcp");
    // Both events are as the documented schemas say (SDKs are typed from them).
    for (const type of ["tool.pending", "mcp.server.account_needed"]) {
      const event = world.agentStream.ofType(type)[0];
      const parsed = AgentEvent.safeParse(event);
      expect(parsed.success ? [] : parsed.error.issues.slice(0, 3), type).toEqual([]);
    }
    expect(account).toMatchObject({ entityId: world.person, service: "Notes", scopes: ["notes:read"], flowId: expect.stringMatching(/^flw_/) });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("waiting");
    // Asked without a token, the server was never sent one.
    expect((await bearers(id)).every((bearer) => bearer === null)).toBe(true);
    // Nobody answers it in the server's place, not even the secret key.
    const runId = String((pending.data as { runId: string }).runId);
    const forged = await secret<{ error: { code: string } }>(`/api/runs/${runId}/tool-results`, { body: { callId: toolCallId, result: { text: "forged" } } });
    expect(forged).toMatchObject({ status: 422, body: { error: { code: "invalid_answer" } } });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("waiting");
    world.close();
  });

  it("when the person connects, the call is made once with their token and the run goes on with its answer", async () => {
    const id = crypto.randomUUID();
    const { world, toolCallId, account } = await waitingCall(id);
    const connected = await personConnects(world.person, account.flowId, issuer);
    expect(connected.status).toBe(200);
    const runs = await settledRuns(world.agent.id, 15_000);
    expect(runs).toHaveLength(1);
    const call = runs[0].toolCalls.find((entry) => entry.toolName === "notes__whoami");
    expect(call).toMatchObject({ status: "completed", result: { text: expect.stringContaining(id) } });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("resolved");
    const token = (await bearers(id)).find((bearer) => bearer !== null) ?? "";
    expect(token).toMatch(/^at-/);
    const { body: messages } = await secret(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(JSON.stringify([runs, messages, world.agentStream.frames, world.spaceStream.frames, await everythingStored(world.agent.id)])).not.toContain(token);
    world.close();
  });

  it("the agent object killed between the card and the callback: the call still completes once after the restart", async () => {
    const id = crypto.randomUUID();
    const { world, toolCallId, account } = await waitingCall(id);
    await abortAllDurableObjects();
    const space = await openSse(`/api/spaces/${world.spaceId}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    await runDurableObjectAlarm(agentObject(world.agent.id));
    await space.collector.waitFor((event) => event.type === "tool.started" && event.data.toolCallId === toolCallId, 10_000);
    expect((await personConnects(world.person, account.flowId, issuer)).status).toBe(200);
    const runs = await settledRuns(world.agent.id, 15_000);
    expect(runs).toHaveLength(1);
    expect(runs[0].toolCalls.find((entry) => entry.toolName === "notes__whoami")).toMatchObject({ status: "completed" });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("resolved");
    const flowsLeft = await env.DB.prepare("SELECT count(*) AS n FROM oauth_flows WHERE entity_id = ?").bind(world.person).first<{ n: number }>();
    expect(flowsLeft?.n).toBe(0);
    space.close();
    world.close();
  });

  it("two calls that need the account at once wait on one flow, and connecting once completes both", async () => {
    const id = crypto.randomUUID();
    const world = await providerWorld({ mcp: { servers: [server(id)] } }, (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "notes__whoami", args: {} }, { name: "notes__whoami", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    await postMessage(world.spaceId, world.person, "who am I, twice?");
    const first = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "notes__whoami");
    const second = await world.agentStream.waitFor(
      (event) => event.type === "tool.pending" && event.data.toolName === "notes__whoami" && event.data.toolCallId !== first.data.toolCallId,
    );
    const flowIds = [first, second].map((event) => (event.data as { account: AccountCard }).account.flowId);
    expect(flowIds[0]).toBe(flowIds[1]);
    const flows = await env.DB.prepare("SELECT count(*) AS n FROM oauth_flows WHERE entity_id = ?").bind(world.person).first<{ n: number }>();
    expect(flows?.n).toBe(1);
    expect((await personConnects(world.person, flowIds[0], issuer)).status).toBe(200);
    const runs = await settledRuns(world.agent.id, 15_000);
    const calls = runs[0].toolCalls.filter((entry) => entry.toolName === "notes__whoami");
    expect(calls.map((entry) => entry.status)).toEqual(["completed", "completed"]);
    for (const event of [first, second]) expect(await pendingStatus(world.agent.id, String(event.data.toolCallId))).toBe("resolved");
    world.close();
  });

  it("a token the server refuses (and no refresh token) sends the person back to the card", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(id);
    await connect(world.person, id, "at-stale-token");
    await world.ask();
    const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "notes__whoami");
    expect((pending.data as { account: AccountCard }).account).toMatchObject({ entityId: world.person, service: "Notes" });
    world.close();
  });

  it("a 403 insufficient_scope asks again for the scopes the server named", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(id);
    await connect(world.person, id, "at-narrow-token");
    await world.ask();
    const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "notes__whoami");
    expect((pending.data as { account: AccountCard }).account.scopes).toEqual(["notes:read", "notes:write"]);
    world.close();
  });

  it("nothing declared and nobody connected: the server is reported, saying how to offer its tools", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(id, { auth: { ...auth, tools: undefined } });
    await world.ask();
    const failed = await world.agentStream.waitFor((event) => event.type === "mcp.server.failed");
    expect(failed.data).toMatchObject({ server: "notes", error: expect.stringMatching(/auth\.tools/) });
    world.close();
  });
});
