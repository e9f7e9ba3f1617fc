/**
 * Webhook subscriptions: an agent's or a space's events pushed as Standard
 * Webhooks, verified here with the `standardwebhooks` library the SDK uses;
 * filtered by event type; retried, also across a restart of the agent's
 * object; never lost between the event and its fan-out.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { call, createHuman, createSpace, memberHeaders, secret } from "../support/api";
import { agentObject, createAgent, waitForRuns, waitUntil } from "../support/agents";
import { readErrorEnvelope } from "../support/error-envelope";
import { enter, skip, toolWorld } from "../support/tool-world";
import type { AgentDO } from "../../src/agents/agent-do";
import { standardSecretOf } from "../../src/webhooks/standard-webhooks";

type Recorded = { headers: Record<string, string>; body: string; at: number };
type Subscription = { id: string; secret: string; url: string; events: string[]; agentId: string | null; spaceId: string | null };
type Pushed = { type: string; timestamp: string; data: Record<string, unknown> };

async function recorded(id: string): Promise<Recorded[]> {
  return (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as Recorded[];
}

async function subscribe(body: Record<string, unknown>): Promise<Subscription> {
  const created = await secret<Subscription>("/api/webhooks", { body });
  expect(created.status).toBe(201);
  return created.body;
}

/** Waits for `count` pushes to a hook, then checks each with the subscription's secret (throws on a bad signature). */
async function pushes(hookId: string, subscriptionSecret: string, count: number, timeoutMs = 10_000): Promise<(Pushed & { id: string })[]> {
  await waitUntil(async () => (await recorded(hookId)).length >= count, timeoutMs, `${count} pushes to ${hookId}`);
  const verifier = new Webhook(subscriptionSecret);
  return (await recorded(hookId)).map((push) => ({ ...(verifier.verify(push.body, push.headers) as Pushed), id: push.headers["webhook-id"] }));
}

const hook = () => crypto.randomUUID();

describe("webhook subscriptions", () => {
  it("an agent's run.completed arrives signed the Standard Webhooks way, once per subscription, with the event's id", async () => {
    const world = await toolWorld([], () => [{ toolCalls: [skip] }]);
    const hookId = hook();
    const spaceHookId = hook();
    const subscription = await subscribe({ url: `http://hooks.test/in/${hookId}`, events: ["run.completed", "run.failed"], agentId: world.agent.id, description: "ops" });
    expect(subscription).toMatchObject({ id: expect.stringMatching(/^whk_[0-9a-f]{32}$/), secret: expect.stringMatching(/^whsec_/), agentId: world.agent.id, spaceId: null });
    const forSpace = await subscribe({ url: `http://hooks.test/in/${spaceHookId}`, events: ["run.completed"], spaceId: world.spaceId });
    expect(forSpace.secret).not.toBe(subscription.secret);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const [push] = await pushes(hookId, subscription.secret, 1);
    // The run was announced to the agent's space: that space's subscription gets the same event, signed with its own secret.
    const expected = {
      id: `evt_${run.id}_completed`,
      type: "run.completed",
      data: { agentId: world.agent.id, runId: run.id, status: "completed", runUrl: `/api/runs/${run.id}`, spaceIds: [world.spaceId] },
    };
    expect(push).toMatchObject(expected);
    expect((await pushes(spaceHookId, forSpace.secret, 1))[0]).toMatchObject(expected);
    const raw = (await recorded(hookId))[0];
    expect(raw.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${btoa("someone else's secret")}`).verify(raw.body, raw.headers)).toThrow();
    world.close();
  });

  it("a space's subscription gets call.awaiting_input with a callback URL that answers the call; other event types are filtered out", async () => {
    const ask = { name: "ask", description: "Ask a person", executionType: "space", isAsync: true, inputSchema: { type: "object", properties: { question: { type: "string" } } } };
    const world = await toolWorld([ask], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "ask", args: { question: "Ship it?" } }, skip] }, { toolCalls: [skip] }]);
    const awaitingHook = hook();
    const expiredHook = hook();
    const awaiting = await subscribe({ url: `http://hooks.test/in/${awaitingHook}`, events: ["call.awaiting_input"], spaceId: world.spaceId });
    const expiredOnly = await subscribe({ url: `http://hooks.test/in/${expiredHook}`, events: ["call.expired"], spaceId: world.spaceId });
    await world.wake();
    const [push] = await pushes(awaitingHook, awaiting.secret, 1);
    const pending = await world.agentStream.waitForType("tool.pending");
    expect(push).toMatchObject({
      id: `evt_${pending.data.toolCallId as string}_awaiting_input`,
      type: "call.awaiting_input",
      data: {
        kind: "call",
        agentId: world.agent.id,
        toolName: "ask",
        args: { question: "Ship it?" },
        spaceId: world.spaceId,
        status: "pending",
        callbackUrl: expect.stringContaining("/api/callbacks/"),
      },
    });
    // Both subscriptions were looked at in the one fan-out that armed the first push: the other one asked for call.expired only.
    expect(await recorded(expiredHook)).toEqual([]);
    expect(expiredOnly.events).toEqual(["call.expired"]);

    const answered = await call(new URL(push.data.callbackUrl as string, "http://gateway.test").pathname, { body: { result: { answer: "yes" } } });
    expect(answered.status).toBe(200);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", result: { answer: "yes" } }]);
    world.close();
  });

  it("call.expired reaches the agent's subscription when an async call expires", async () => {
    const later = {
      name: "later",
      description: "Answered later",
      executionType: "external",
      isAsync: true,
      visible: false,
      inputSchema: { type: "object" },
      execution: { expiresIn: 300 },
    };
    const world = await toolWorld([later], () => [{ toolCalls: [{ name: "later", args: {} }, skip] }, { toolCalls: [skip] }]);
    const hookId = hook();
    const subscription = await subscribe({ url: `http://hooks.test/in/${hookId}`, events: ["call.expired", "call.awaiting_input"], agentId: world.agent.id });
    await world.wake();
    const pushed = await pushes(hookId, subscription.secret, 2);
    const pending = await world.agentStream.waitForType("tool.pending");
    expect(pushed.map((push) => push.type)).toEqual(["call.awaiting_input", "call.expired"]);
    expect(pushed[1]).toMatchObject({
      id: `evt_${pending.data.toolCallId as string}_expired`,
      data: { toolCallId: pending.data.toolCallId, toolName: "later", error: expect.stringContaining("expired") },
    });
    world.close();
  });

  it("an approval is pushed as call.awaiting_input of kind approval, answerable by its callback URL", async () => {
    const send = {
      name: "sendInvoice",
      description: "Send",
      executionType: "internal",
      visible: false,
      inputSchema: { type: "object", properties: { amount: { type: "number" } } },
      approval: { required: true },
    };
    const world = await toolWorld([send], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "sendInvoice", args: { amount: 40 } }] }, { toolCalls: [skip] }]);
    const hookId = hook();
    const subscription = await subscribe({ url: `http://hooks.test/in/${hookId}`, events: ["call.awaiting_input"], agentId: world.agent.id });
    await world.wake();
    const [push] = await pushes(hookId, subscription.secret, 1);
    expect(push.data).toMatchObject({ kind: "approval", toolCallId: expect.stringMatching(/^apr_/), toolName: "sendInvoice", args: { amount: 40 }, spaceId: world.spaceId });
    const answered = await call(new URL(push.data.callbackUrl as string, "http://gateway.test").pathname, { body: { result: { approved: true } } });
    expect(answered.status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "sendInvoice")).toMatchObject({ status: "completed", result: { success: true, args: { amount: 40 } } });
    world.close();
  });

  it("run.failed for a run an operator aborts", async () => {
    const hold = { name: "hold", description: "Wait", executionType: "external", visible: false, timeout: 60_000, inputSchema: { type: "object" } };
    const world = await toolWorld([hold], () => [{ toolCalls: [{ name: "hold", args: {} }] }]);
    const hookId = hook();
    const subscription = await subscribe({ url: `http://hooks.test/in/${hookId}`, events: ["run.failed"], agentId: world.agent.id });
    await world.wake();
    await world.agentStream.waitForType("tool.pending");
    expect((await secret(`/api/agents/${world.agent.id}/abort`, { body: { reason: "stuck" } })).status).toBe(200);
    const [push] = await pushes(hookId, subscription.secret, 1);
    expect(push).toMatchObject({ type: "run.failed", data: { status: "failed", error: "Aborted by an operator: stuck" } });
    world.close();
  });

  it("a push that fails is retried with the same webhook-id, also after the agent's object restarts", async () => {
    const world = await toolWorld([], () => [{ toolCalls: [skip] }]);
    const hookId = hook();
    const subscription = await subscribe({ url: `http://hooks.test/down/2/${hookId}`, events: ["run.completed"], agentId: world.agent.id });
    await world.wake();
    await world.agentStream.waitForType("webhook.failed");
    await abortAllDurableObjects();
    // The next attempts are 5 s and 5 min away: their deadlines are made due, and the alarm fires as it would then.
    for (const count of [2, 3]) {
      await runInDurableObject(agentObject(world.agent.id), async (_instance: AgentDO, state) =>
        state.storage.sql.exec("UPDATE deadlines SET due_at = ? WHERE kind = 'webhook'", Date.now() - 1),
      );
      await runDurableObjectAlarm(agentObject(world.agent.id));
      await waitUntil(async () => (await recorded(hookId)).length >= count, 5_000, `attempt ${count} after the restart`);
    }
    const attempts = await recorded(hookId);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(attempts.map((push) => push.headers["webhook-id"])).toEqual([`evt_${run.id}_completed`, `evt_${run.id}_completed`, `evt_${run.id}_completed`]);
    expect(attempts.map((push) => Number(push.headers["x-switchboard-attempt"]))).toEqual([1, 2, 3]);
    const verifier = new Webhook(subscription.secret);
    for (const push of attempts) expect(verifier.verify(push.body, push.headers)).toMatchObject({ type: "run.completed" });
    world.close();
  });

  it("an event queued but not fanned out when the object died is fanned out by the alarm", async () => {
    const agent = await createAgent({ agent: { name: "Quiet" }, model: { provider: "scripted", turns: [] } });
    const hookId = hook();
    const subscription = await subscribe({ url: `http://hooks.test/in/${hookId}`, events: ["run.failed"], agentId: agent.id });
    const event = { id: "evt_run_lost_failed", type: "run.failed", timestamp: new Date().toISOString(), data: { agentId: agent.id, runId: "run_lost", status: "failed" } };
    // What commitRunEnd leaves when the object dies right after its transaction: the notify row, nothing sent.
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      state.storage.sql.exec(
        "INSERT INTO deadlines (id, kind, due_at, payload) VALUES (?, 'notify', ?, ?)",
        `notify:${event.id}`,
        Date.now() - 1,
        JSON.stringify({ event, spaceIds: [] }),
      );
    });
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(agent.id));
    const [push] = await pushes(hookId, subscription.secret, 1);
    expect(push).toMatchObject({ id: event.id, type: "run.failed", data: { runId: "run_lost" } });
    await waitUntil(
      async () =>
        runInDurableObject(
          agentObject(agent.id),
          async (_instance: AgentDO, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM deadlines WHERE kind IN ('notify', 'webhook')").one().n === 0,
        ),
      5_000,
      "the notify and webhook rows are gone once delivered",
    );
  });

  it("a deleted subscription gets nothing more; a new one gets the next event at once", async () => {
    const world = await toolWorld([], () => [{ toolCalls: [skip] }, { toolCalls: [skip] }]);
    const goneHook = hook();
    const keptHook = hook();
    const gone = await subscribe({ url: `http://hooks.test/in/${goneHook}`, events: ["run.completed"], agentId: world.agent.id });
    const kept = await subscribe({ url: `http://hooks.test/in/${keptHook}`, events: ["run.completed"], agentId: world.agent.id });
    await world.wake();
    await pushes(goneHook, gone.secret, 1);
    await pushes(keptHook, kept.secret, 1);
    expect((await secret(`/api/webhooks/${gone.id}`, { method: "DELETE" })).status).toBe(200);
    const lateHook = hook();
    const late = await subscribe({ url: `http://hooks.test/in/${lateHook}`, events: ["run.completed"], agentId: world.agent.id });
    await world.wake();
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect((await pushes(keptHook, kept.secret, 2))[1].data.runId).toBe(second.id);
    expect((await pushes(lateHook, late.secret, 1))[0].data.runId).toBe(second.id);
    // The second run's event was fanned out once, to the subscriptions that existed then.
    expect((await recorded(goneHook)).length).toBe(1);
    world.close();
  });

  it("a tool's pushed call carries Standard Webhooks headers signed with WEBHOOK_SECRET", async () => {
    const hookId = hook();
    const pushed = {
      name: "fetchData",
      description: "Fetch",
      executionType: "external",
      isAsync: true,
      visible: false,
      inputSchema: { type: "object" },
      execution: { webhook: `http://hooks.test/in/${hookId}` },
    };
    const world = await toolWorld([pushed], () => [{ toolCalls: [{ name: "fetchData", args: { q: 1 } }, skip] }]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const [push] = await pushes(hookId, standardSecretOf(env.WEBHOOK_SECRET), 1);
    expect(push).toMatchObject({ id: pending.data.toolCallId, type: "tool.call", toolName: "fetchData" } as Record<string, unknown>);
    world.close();
  });
});

describe("webhook subscription routes", () => {
  it("refuse bad input with the error envelope, and list, read and delete", async () => {
    const agent = await createAgent({ agent: { name: "Listed" }, model: { provider: "scripted", turns: [] } });
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const url = "http://hooks.test/in/routes";
    const bad: [Record<string, unknown>, number, string][] = [
      [{ url, events: ["run.completed"] }, 400, "validation_error"],
      [{ url, events: ["run.completed"], agentId: agent.id, spaceId }, 400, "validation_error"],
      [{ url, events: [], agentId: agent.id }, 400, "validation_error"],
      [{ url, events: ["run.started"], agentId: agent.id }, 400, "validation_error"],
      [{ url, events: ["run.failed", "run.failed"], agentId: agent.id }, 400, "validation_error"],
      [{ url: "ftp://hooks.test/x", events: ["run.failed"], agentId: agent.id }, 400, "validation_error"],
      [{ url, events: ["run.failed"], agentId: agent.id, extra: 1 }, 400, "validation_error"],
      [{ url, events: ["run.failed"], agentId: "agt_missing" }, 404, "not_found"],
      [{ url, events: ["run.failed"], spaceId: "spc_missing" }, 404, "not_found"],
    ];
    for (const [body, status, code] of bad) {
      const response = await call("/api/webhooks", { body, headers: { "x-secret-key": env.GATEWAY_SECRET_KEY } });
      expect(response.status, JSON.stringify(body)).toBe(status);
      await readErrorEnvelope(response, code);
    }
    // Not with a member's token: subscriptions are the operator's.
    expect((await call("/api/webhooks", { body: { url, events: ["run.failed"], spaceId }, headers: await memberHeaders(person) })).status).toBe(403);

    const forSpace = await subscribe({ url, events: ["run.failed"], spaceId });
    const forAgent = await subscribe({ url, events: ["run.completed"], agentId: agent.id });
    const listed = await secret<{ webhooks: Subscription[] }>(`/api/webhooks?spaceId=${spaceId}`);
    expect(listed.body.webhooks.map((entry) => entry.id)).toEqual([forSpace.id]);
    expect((await secret<Subscription>(`/api/webhooks/${forAgent.id}`)).body).toMatchObject({ id: forAgent.id, secret: forAgent.secret, events: ["run.completed"] });
    expect((await secret(`/api/webhooks/whk_${"0".repeat(32)}`)).status).toBe(404);
    expect((await secret("/api/webhooks/not-an-id")).status).toBe(400);
    expect((await secret(`/api/webhooks/${forSpace.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await secret(`/api/webhooks/${forSpace.id}`, { method: "DELETE" })).status).toBe(404);

    // An agent's subscriptions go with it.
    expect((await secret(`/api/agents/${agent.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await secret(`/api/webhooks/${forAgent.id}`)).status).toBe(404);
  });

  it("at most 20 per agent: the 21st is a 409", async () => {
    const agent = await createAgent({ agent: { name: "Many" }, model: { provider: "scripted", turns: [] } });
    for (let index = 0; index < 20; index += 1) await subscribe({ url: `http://hooks.test/in/many-${index}`, events: ["run.completed"], agentId: agent.id });
    const refused = await call("/api/webhooks", {
      body: { url: "http://hooks.test/in/many-21", events: ["run.completed"], agentId: agent.id },
      headers: { "x-secret-key": env.GATEWAY_SECRET_KEY },
    });
    expect(refused.status).toBe(409);
    await readErrorEnvelope(refused, "limit_reached");
  });
});
