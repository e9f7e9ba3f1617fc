/**
 * A gateway tool that acts as a person (`execution.auth`): the config's
 * refusals; connected, the person's bearer token goes to the tool's origin
 * and nowhere else (no run record, event, message, D1 row or object row
 * holds it); refreshed once under concurrent calls and after a 401; not
 * connected, the call waits on a card only that person can get the link of,
 * resumes once when they connect (also after the agent object was killed),
 * and ends with a clear error when nobody does in time.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConnectionStore } from "../../../src/accounts/connection-store";
import { tokenCipherFor } from "../../../src/accounts/token-cipher";
import { getDatabase } from "../../../src/db/client";
import { ToolConfig } from "../../../src/tools/config/tool-config";
import { sendAsPerson } from "../../../src/tools/gateway/send-as-person";
import { type AccountCard, everythingStored, fakeIssuer, fakeOAuth, pendingStatus, personConnects, recorded } from "../../support/accounts";
import { callJson, createHuman, memberHeaders, postMessage, secret } from "../../support/api";
import { agentObject, settledRuns } from "../../support/agents";
import { openSse } from "../../support/stream-client";
import { enter, skip, toolWorld } from "../../support/tool-world";
import { scriptedConfig } from "../../support/agents";

const issuer = fakeIssuer;
const origin = "http://api.test";

const auth = fakeOAuth({ scope: "files:read", service: "Files" });

function personTool(id: string, overrides: Record<string, unknown> = {}) {
  return {
    name: "myFiles",
    description: "Lists my files",
    executionType: "gateway",
    inputSchema: { type: "object", properties: {} },
    timeout: 30_000,
    execution: { url: `${origin}/as-person/${id}`, method: "GET", auth },
    ...overrides,
  };
}

async function connect(entityId: string, tokens: { accessToken: string; refreshToken?: string; expiresAt?: string }) {
  const store = new ConnectionStore(getDatabase(env.DB), await tokenCipherFor(env));
  await store.save({ entityId, connectionKey: origin }, { scopes: ["files:read"], tokenType: "Bearer", ...tokens }, { issuer, clientId: "switchboard-test" });
}

/** A world where the person's message starts the run, which calls the tool once. */
async function personWorld(tool: Record<string, unknown>) {
  const world = await toolWorld([tool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "myFiles", args: {} }, skip] }, { toolCalls: [skip] }]);
  const ask = () => postMessage(world.spaceId, world.person, "list my files");
  return { ...world, ask };
}

describe("the auth config of a gateway tool", () => {
  const problemOf = (execution: Record<string, unknown>) => {
    const parsed = ToolConfig.safeParse(personTool("config", { execution: { url: `${origin}/as-person/config`, ...execution } }));
    return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  };

  it("takes a person's or the agent's OAuth, by issuer or by endpoints", () => {
    expect(problemOf({ auth })).toEqual([]);
    expect(problemOf({ auth: { ...auth, owner: "agent" } })).toEqual([]);
    expect(problemOf({ auth: { type: "oauth", owner: "person", issuer } })).toEqual([]);
  });

  it("refuses, naming the path: an unknown owner, no issuer nor endpoints, half the endpoints, a written secret, an Authorization header beside it, unknown fields", () => {
    expect(problemOf({ auth: { ...auth, owner: "robot" } })).toEqual([expect.stringMatching(/^execution\.auth\.owner: /)]);
    expect(problemOf({ auth: { type: "oauth", owner: "person" } })).toEqual([expect.stringMatching(/^execution\.auth\.issuer: Required/)]);
    expect(problemOf({ auth: { type: "oauth", owner: "person", tokenUrl: `${issuer}/token` } })).toEqual([expect.stringMatching(/^execution\.auth\.authorizationUrl: /)]);
    expect(problemOf({ auth: { ...auth, client: { clientId: "x", clientSecret: "s3cret" } } })).toEqual([expect.stringMatching(/^execution\.auth\.client\.clientSecret: /)]);
    expect(problemOf({ auth: { ...auth, tokenUrl: "http://auth.example.com/token" } })).toEqual([expect.stringMatching(/^execution\.auth\.tokenUrl: .*https/)]);
    expect(problemOf({ auth, headers: { Authorization: "Bearer ${env.API_KEY}" } })).toEqual([expect.stringMatching(/^execution\.headers\.Authorization: /)]);
    expect(problemOf({ auth: { ...auth, clientId: "x" } })).toEqual([expect.stringMatching(/^execution\.auth: .*clientId/)]);
  });

  it("an agent saved with an unknown owner is a 400 that names the path", async () => {
    const { status, body } = await secret<{ error: { code: string; message: string } }>("/api/agents", {
      body: { config: scriptedConfig([], { tools: [personTool("config", { execution: { url: `${origin}/as-person/config`, auth: { ...auth, owner: "everyone" } } })] }) },
    });
    expect(status).toBe(400);
    expect(body.error.message).toMatch(/tools\.0\.execution\.auth\.owner/);
  });
});

describe("a connected person", () => {
  it("the bearer goes to the tool's origin, and the token is in no record, event, message or row", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(personTool(id));
    const token = `at-secret-${crypto.randomUUID()}`;
    await connect(world.person, { accessToken: token, refreshToken: `rt-${crypto.randomUUID()}`, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await world.ask();
    const runs = await settledRuns(world.agent.id);
    expect(runs[0].toolCalls.find((call) => call.toolName === "myFiles")).toMatchObject({ status: "completed", result: { ok: true, id } });
    const sent = await recorded(`as-person-${id}`);
    expect(sent.map((request) => request.headers.authorization)).toEqual([`Bearer ${token}`]);
    expect(JSON.stringify(await recorded("stray"))).not.toContain(token);

    const { body: messages } = await secret(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    const seen = JSON.stringify([runs, messages, world.agentStream.frames, world.spaceStream.frames, await everythingStored(world.agent.id)]);
    expect(seen).toContain(id);
    expect(seen).not.toContain(token);
    world.close();
  });

  it("a service that echoes the token back: the answer keeps it out, [redacted] in its place", async () => {
    const world = await personWorld({ ...personTool("echo"), execution: { url: `${origin}/echo/files`, method: "GET", auth } });
    const token = `at-echoed-${crypto.randomUUID()}`;
    await connect(world.person, { accessToken: token, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await world.ask();
    const runs = await settledRuns(world.agent.id);
    expect(runs[0].toolCalls.find((call) => call.toolName === "myFiles")?.result).toMatchObject({ path: "/echo/files", headers: { authorization: "Bearer [redacted]" } });
    const { body: messages } = await secret(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(JSON.stringify([runs, messages, world.agentStream.frames, world.spaceStream.frames, await everythingStored(world.agent.id)])).not.toContain(token);
    world.close();
  });

  it("a run no person's message started fails the call, saying why, and sends nothing", async () => {
    const id = crypto.randomUUID();
    const world = await personWorld(personTool(id));
    await world.wake();
    const runs = await settledRuns(world.agent.id);
    expect(runs[0].toolCalls.find((call) => call.toolName === "myFiles")?.result).toEqual({ error: expect.stringMatching(/no person's message started this run/) });
    expect(await recorded(`as-person-${id}`)).toEqual([]);
    world.close();
  });
});

describe("refreshing the person's token", () => {
  const execution = (id: string) => ({
    url: `${origin}/as-person/${id}`,
    method: "GET" as const,
    auth: {
      type: "oauth" as const,
      owner: "person" as const,
      issuer,
      authorizationUrl: `${issuer}/authorize`,
      tokenUrl: `${issuer}/token`,
      client: { clientId: "switchboard-test" },
    },
  });
  const send = (id: string, entityId: string) =>
    sendAsPerson(execution(id), {}, { entityId, connectionKey: origin, serviceName: "Files" }, { env: { ...env }, timeoutMs: 5_000, maxResponseBytes: 100_000 });
  const refreshesOf = async (refreshToken: string) => (await recorded("auth-token")).filter((request) => new URLSearchParams(request.body).get("refresh_token") === refreshToken);

  it("a token about to expire is refreshed once for ten concurrent calls, which all carry the new one", async () => {
    const id = crypto.randomUUID();
    const person = await createHuman("Ten calls");
    const old = `at-old-${crypto.randomUUID()}`;
    const refreshToken = `rt-${crypto.randomUUID()}`;
    await connect(person, { accessToken: old, refreshToken, expiresAt: new Date(Date.now() + 30_000).toISOString() });
    const results = await Promise.all(Array.from({ length: 10 }, () => send(id, person)));
    expect(results.every((result) => result.kind === "sent" && result.result.ok)).toBe(true);
    expect(await refreshesOf(refreshToken)).toHaveLength(1);
    const bearers = new Set((await recorded(`as-person-${id}`)).map((request) => request.headers.authorization));
    expect(bearers.size).toBe(1);
    expect([...bearers][0]).toMatch(/^Bearer at-/);
    expect([...bearers][0]).not.toBe(`Bearer ${old}`);
  });

  it("a 401 refreshes once and sends the request once more", async () => {
    const id = crypto.randomUUID();
    const person = await createHuman("Refused");
    const stale = `at-stale-${crypto.randomUUID()}`;
    const refreshToken = `rt-${crypto.randomUUID()}`;
    await connect(person, { accessToken: stale, refreshToken, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const result = await send(id, person);
    expect(result).toEqual({ kind: "sent", result: { ok: true, value: { ok: true, id } } });
    const requests = await recorded(`as-person-${id}`);
    expect(requests).toHaveLength(2);
    expect(requests[0].headers.authorization).toBe(`Bearer ${stale}`);
    expect(requests[1].headers.authorization).not.toBe(`Bearer ${stale}`);
    expect(await refreshesOf(refreshToken)).toHaveLength(1);
  });

  it("a 401 again with the refreshed token counts as not connected (the grant is gone at the service)", async () => {
    const id = crypto.randomUUID();
    const person = await createHuman("Gone");
    const refreshToken = `rt-stale-${crypto.randomUUID()}`;
    await connect(person, { accessToken: `at-stale-${crypto.randomUUID()}`, refreshToken, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(await send(id, person)).toEqual({ kind: "not_connected", reason: "Files refused the token even after a refresh", scopes: [] });
    expect(await recorded(`as-person-${id}`)).toHaveLength(2);
    expect(await refreshesOf(refreshToken)).toHaveLength(1);
  });

  it("a 403 insufficient_scope counts as not connected, asking for the scopes held and the ones named", async () => {
    const id = crypto.randomUUID();
    const person = await createHuman("Needs more");
    await connect(person, { accessToken: `at-${crypto.randomUUID()}`, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const more = { ...execution(id), url: `${origin}/as-person/${id}/more`, auth: { ...execution(id).auth, scope: "files:read" } };
    const result = await sendAsPerson(
      more,
      {},
      { entityId: person, connectionKey: origin, serviceName: "Files" },
      { env: { ...env }, timeoutMs: 5_000, maxResponseBytes: 100_000 },
    );
    expect(result).toEqual({ kind: "not_connected", reason: "Files needs more access (files:write)", scopes: ["files:read", "files:write"] });
    expect(await recorded(`as-person-${id}`)).toHaveLength(1);
  });

  it("a refresh the server refuses counts as not connected", async () => {
    const id = crypto.randomUUID();
    const person = await createHuman("Revoked grant");
    await connect(person, { accessToken: `at-${crypto.randomUUID()}`, refreshToken: "revoked-grant", expiresAt: new Date(Date.now() + 10_000).toISOString() });
    expect(await send(id, person)).toMatchObject({ kind: "not_connected", scopes: [] });
    expect(await recorded(`as-person-${id}`)).toEqual([]);
  });
});

describe("a person who has not connected", () => {
  /** The run is asked for; the call's card asks the person to connect. */
  async function waitingCall(tool: Record<string, unknown>) {
    const world = await personWorld(tool);
    const other = await createHuman("Onlooker");
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: other } });
    await world.ask();
    const pending = await world.agentStream.waitFor((event) => event.type === "tool.pending" && event.data.toolName === "myFiles");
    const { toolCallId, account } = pending.data as { toolCallId: string; account: AccountCard };
    return { world, other, toolCallId, account };
  }

  it("the call waits on a card for that person only: the link is theirs, nobody else sees or gets one", async () => {
    const id = crypto.randomUUID();
    const { world, other, toolCallId, account } = await waitingCall(personTool(id));
    expect(account).toMatchObject({ entityId: world.person, service: "Files", scopes: ["files:read"], flowId: expect.stringMatching(/^flw_/) });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("waiting");

    const { body } = await callJson<{ messages: { parts?: { toolCallId?: string; status?: string; account?: unknown; answeredBy?: unknown }[] }[] }>(
      `/api/spaces/${world.spaceId}/messages?afterSeq=0`,
      { headers: await memberHeaders(other) },
    );
    const card = body.messages.flatMap((message) => message.parts ?? []).find((part) => part.toolCallId === toolCallId);
    expect(card).toMatchObject({ status: "requires_action", account, answeredBy: { kind: "initiator", entityId: world.person } });
    const everywhere = JSON.stringify([body, world.agentStream.frames, world.spaceStream.frames, await everythingStored(world.agent.id)]);
    expect(everywhere).not.toContain("/oauth/start");

    const refused = await callJson<{ error: { code: string } }>(`/api/me/connections/flows/${account.flowId}`, { headers: await memberHeaders(other) });
    expect(refused).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    const operator = await secret<{ error: { code: string } }>(`/api/me/connections/flows/${account.flowId}`);
    expect(operator.status).toBe(403);
    const link = await callJson<{ startUrl: string; service: string; scopes: string[] }>(`/api/me/connections/flows/${account.flowId}`, {
      headers: await memberHeaders(world.person),
    });
    expect(link).toMatchObject({ status: 200, body: { service: "Files", scopes: ["files:read"], startUrl: expect.stringContaining(`/oauth/start/${account.flowId}?t=`) } });
    expect(await recorded(`as-person-${id}`)).toEqual([]);

    // Nobody answers it in the service's place, not even the secret key.
    const runId = (await world.agentStream.waitForType("tool.pending")).data.runId;
    const forged = await secret<{ error: { code: string } }>(`/api/runs/${String(runId)}/tool-results`, { body: { callId: toolCallId, result: { ok: true, forged: true } } });
    expect(forged).toMatchObject({ status: 422, body: { error: { code: "invalid_answer" } } });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("waiting");
    world.close();
  });

  it("when the person connects, the request is sent once with their token and the run goes on with its answer", async () => {
    const id = crypto.randomUUID();
    const { world, toolCallId, account } = await waitingCall(personTool(id));
    const connected = await personConnects(world.person, account.flowId, issuer);
    expect(connected.status).toBe(200);
    const runs = await settledRuns(world.agent.id, 15_000);
    expect(runs).toHaveLength(1);
    expect(runs[0].toolCalls.find((call) => call.toolName === "myFiles")).toMatchObject({ status: "completed", result: { ok: true, id } });
    expect(runs[0].toolCalls.find((call) => call.toolName === "skip")).toBeDefined();
    const sent = await recorded(`as-person-${id}`);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers.authorization).toMatch(/^Bearer at-/);
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("resolved");
    const token = sent[0].headers.authorization.slice("Bearer ".length);
    const { body: messages } = await secret(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(JSON.stringify([runs, messages, world.agentStream.frames, world.spaceStream.frames, await everythingStored(world.agent.id)])).not.toContain(token);
    world.close();
  });

  it("told twice at once that the account is connected, the agent sends the request once", async () => {
    const id = crypto.randomUUID();
    const { world, toolCallId } = await waitingCall(personTool(id));
    await connect(world.person, { accessToken: `at-${crypto.randomUUID()}`, expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const agent = agentObject(world.agent.id);
    const told = await Promise.all([agent.resumeAccountCall(toolCallId), agent.resumeAccountCall(toolCallId), agent.resumeAccountCall(toolCallId)]);
    expect(told.filter((answer) => answer.resumed)).toHaveLength(1);
    const runs = await settledRuns(world.agent.id, 15_000);
    expect(runs[0].toolCalls.find((call) => call.toolName === "myFiles")).toMatchObject({ status: "completed", result: { ok: true, id } });
    expect(await recorded(`as-person-${id}`)).toHaveLength(1);
    expect(await agent.resumeAccountCall(toolCallId)).toEqual({ resumed: false });
    expect(await recorded(`as-person-${id}`)).toHaveLength(1);
    world.close();
  });

  it("nobody connects before the tool's timeout: the model is told so, and nothing is sent", async () => {
    const id = crypto.randomUUID();
    const { world, toolCallId } = await waitingCall(personTool(id, { timeout: 400 }));
    const runs = await settledRuns(world.agent.id, 10_000);
    expect(runs[0].toolCalls.find((call) => call.toolName === "myFiles")?.result).toEqual({ error: expect.stringMatching(/^Nobody connected Files in time/) });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("expired");
    expect(await recorded(`as-person-${id}`)).toEqual([]);
    world.close();
  });

  it("the agent object killed between the card and the callback: the call still completes once after the restart", async () => {
    const id = crypto.randomUUID();
    const { world, toolCallId, account } = await waitingCall(personTool(id));
    await abortAllDurableObjects();
    const space = await openSse(`/api/spaces/${world.spaceId}/stream`, { "x-secret-key": env.GATEWAY_SECRET_KEY });
    await runDurableObjectAlarm(agentObject(world.agent.id));
    // The cycle goes on from its journal and does the call again: it waits on the same flow, it begins none.
    await space.collector.waitFor((event) => event.type === "tool.started" && event.data.toolCallId === toolCallId, 10_000);
    const connected = await personConnects(world.person, account.flowId, issuer);
    expect(connected.status).toBe(200);
    const runs = await settledRuns(world.agent.id, 15_000);
    expect(runs).toHaveLength(1);
    expect(runs[0].toolCalls.find((call) => call.toolName === "myFiles")).toMatchObject({ status: "completed", result: { ok: true, id } });
    expect(await recorded(`as-person-${id}`)).toHaveLength(1);
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("resolved");
    const flowsLeft = await env.DB.prepare("SELECT count(*) AS n FROM oauth_flows WHERE entity_id = ?").bind(world.person).first<{ n: number }>();
    expect(flowsLeft?.n).toBe(0);
    space.close();
    world.close();
  });
});
