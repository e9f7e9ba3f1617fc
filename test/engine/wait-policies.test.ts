import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createHuman, memberHeaders, postMessage, secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { readErrorEnvelope } from "../support/error-envelope";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Part = { toolCallId: string; runId: string; status: string; remindedAt?: string };

const ask = (overrides: Record<string, unknown> = {}) => ({
  name: "ask",
  description: "Ask a person",
  executionType: "space",
  inputSchema: { type: "object", properties: { question: { type: "string" } } },
  ...overrides,
});

async function card(world: Awaited<ReturnType<typeof toolWorld>>): Promise<Part> {
  const event = await world.spaceStream.waitFor((entry) => entry.type === "space.message" && entry.data.role === "tool");
  return (event.data.parts as Part[])[0];
}

describe("who may answer", () => {
  it("answeredBy entities: other members get 403 with the reason; the named one answers", async () => {
    const world = await toolWorld([], () => []);
    const lead = await createHuman("Lead");
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: lead } });
    const config = (await secret<{ config: Record<string, unknown> }>(`/api/agents/${world.agent.id}`)).body.config;
    await secret(`/api/agents/${world.agent.id}`, {
      method: "PUT",
      body: {
        config: {
          ...config,
          tools: [ask({ isAsync: true, answeredBy: { entities: [lead] } })],
          model: { provider: "scripted", turns: [{ toolCalls: [enter(world.spaceId), { name: "ask", args: { question: "ok?" } }, skip] }, { toolCalls: [skip] }] },
        },
      },
    });
    await world.wake();
    const part = await card(world);
    const refused = await submitResult(part.runId, part.toolCallId, { yes: true }, await memberHeaders(world.person));
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain(`Only ${lead} may answer`);
    expect((await submitResult(part.runId, part.toolCallId, { yes: true }, await memberHeaders(lead))).status).toBe(200);
    world.close();
  });

  it("answeredBy roles checks the member's role in the space; roles can be set and cleared", async () => {
    const world = await toolWorld([ask({ isAsync: true, answeredBy: { roles: ["approver"] } })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const part = await card(world);
    expect((await submitResult(part.runId, part.toolCallId, { yes: 1 }, await memberHeaders(world.person))).body.error?.message).toContain("role approver");
    const set = await secret(`/api/spaces/${world.spaceId}/members/${world.person}`, { method: "PUT", body: { role: "approver" } });
    expect(set).toMatchObject({ status: 200, body: { role: "approver" } });
    expect((await submitResult(part.runId, part.toolCallId, { yes: 1 }, await memberHeaders(world.person))).status).toBe(200);
    world.close();
  });

  it("answeredBy initiator: only the person whose message started the run", async () => {
    const world = await toolWorld([ask({ isAsync: true, answeredBy: "initiator" })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    const other = await createHuman("Other");
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: other } });
    await postMessage(world.spaceId, world.person, "please ask me");
    const part = await card(world);
    expect((await submitResult(part.runId, part.toolCallId, { yes: 1 }, await memberHeaders(other))).body.error?.message).toContain("started this run");
    expect((await submitResult(part.runId, part.toolCallId, { yes: 1 }, await memberHeaders(world.person))).status).toBe(200);
    world.close();
  });

  it("answeredBy initiator on a run no person started: members are told only the secret key or the callback URL can answer", async () => {
    const world = await toolWorld([ask({ isAsync: true, answeredBy: "initiator" })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const part = await card(world);
    const refused = await submitResult(part.runId, part.toolCallId, { yes: 1 }, await memberHeaders(world.person));
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toContain("no person's message started it");
    expect((await submitResult(part.runId, part.toolCallId, { yes: 1 })).status).toBe(200);
    world.close();
  });
});

describe("timeout policies on waiting calls", () => {
  it("deny settles the call as denied (a later answer conflicts); reminders bring the card up before the deadline", async () => {
    const world = await toolWorld([ask({ timeout: 1_500, onTimeout: "deny", reminders: [1_000] })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: {} }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const part = await card(world);
    const reminder = await world.agentStream.waitForType("tool.reminder");
    expect(reminder.data).toMatchObject({ toolCallId: part.toolCallId });
    expect((await world.spaceStream.waitFor((event) => event.type === "space.message.updated" && Boolean((event.data.parts as Part[])[0].remindedAt))).data).toBeTruthy();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "ask")).toMatchObject({ status: "failed", error: expect.stringContaining("denied") });
    expect((await submitResult(part.runId, part.toolCallId, { late: true })).status).toBe(409);
    world.close();
  });

  it("a config that asks a waiting call to auto-approve, or to escalate nowhere, is refused", async () => {
    const bad = await secret<{ error: { details: { path: string }[] } }>("/api/agents", {
      body: {
        config: { agent: { name: "x" }, model: { provider: "scripted", turns: [] }, tools: [ask({ onTimeout: "approve" }), { ...ask({ onTimeout: "escalate" }), name: "ask2" }] },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((detail) => detail.path)).toEqual(expect.arrayContaining(["config.tools.0.onTimeout", "config.tools.1.escalateTo"]));
  });
});

describe("callback URLs", () => {
  it("answer a pending call with one POST and no key; same body is a duplicate, another is 409, a forged token 401", async () => {
    const external = { name: "lookup", description: "Look up", executionType: "external", visible: false, isAsync: true, inputSchema: { type: "object" } };
    const world = await toolWorld([external], () => [{ toolCalls: [{ name: "lookup", args: {} }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const url = new URL(pending.data.callbackUrl as string, "http://gateway.test");
    expect(url.pathname).toMatch(/^\/api\/callbacks\//);
    const run = await secret<{ pendingCalls: { toolCallId: string; callbackUrl: string }[] }>(`/api/runs/${pending.data.runId}`);
    expect(run.body.pendingCalls).toMatchObject([{ toolCallId: pending.data.toolCallId, callbackUrl: expect.stringContaining("/api/callbacks/") }]);

    const answered = await call(url.pathname, { body: { result: { found: 3 } } });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ success: true });
    const again = await call(url.pathname, { body: { result: { found: 3 } } });
    expect(await again.json()).toMatchObject({ duplicate: true });
    expect((await call(url.pathname, { body: { result: { found: 4 } } })).status).toBe(409);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", result: { found: 3 } }]);

    const [payload, signature] = url.pathname.split("/").pop()?.split(".") ?? [];
    const forged = await call(`/api/callbacks/${payload}.${signature.slice(0, -2)}AA`, { body: { result: 1 } });
    expect(forged.status).toBe(401);
    await readErrorEnvelope(forged, "unauthorized");
    world.close();
  });

  it("an expired callback URL is 410, and a token never opens another call", async () => {
    const { signCallbackToken } = await import("../../src/security/callback-token");
    const stale = await signCallbackToken(env.WEBHOOK_SECRET, "call_anything", Date.now() - 1_000);
    const expired = await call(`/api/callbacks/${stale}`, { body: { result: 1 } });
    expect(expired.status).toBe(410);
    await readErrorEnvelope(expired, "callback_expired");
    const unknown = await signCallbackToken(env.WEBHOOK_SECRET, "call_unknown", Date.now() + 60_000);
    expect((await call(`/api/callbacks/${unknown}`, { body: { result: 1 } })).status).toBe(404);
  });
});
