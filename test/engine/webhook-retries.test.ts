/**
 * Pushes outlast outages: a pushed call is tried until it settles or its
 * deadline passes (not six times over 15 s), also across a restart of the
 * agent's object; a subscription's event follows its schedule of hours, then
 * lands in the dead-letter list, from which a redelivery reaches the
 * receiver once. Time is driven through the deadline table: each next
 * attempt's deadline is moved to now and the object's alarm fired, as it
 * would fire when the wait is over.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../src/agents/agent-do";
import { standardSecretOf } from "../../src/webhooks/standard-webhooks";
import { WebhookDeadline } from "../../src/webhooks/webhook-deadline";
import { subscriptionScheduleMs } from "../../src/webhooks/webhook-retry-schedule";
import { getDatabase } from "../../src/db/client";
import { webhookDeadLetters } from "../../src/db/schema";
import { deadLetterIdOf } from "../../src/webhooks/webhook-dead-letters";
import { call, createHuman, memberHeaders, secret } from "../support/api";
import { agentObject, createAgent, waitForRuns, waitUntil } from "../support/agents";
import { readErrorEnvelope } from "../support/error-envelope";
import type { ReceivedEvent } from "../support/stream-client";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Recorded = { headers: Record<string, string>; body: string; at: number };
type DeadLetter = {
  id: string;
  source: string;
  agentId: string;
  subscriptionId: string | null;
  toolCallId: string | null;
  webhookId: string;
  type: string;
  status: string;
  attempts: number;
  lastError: string;
  redeliveries: number;
};

async function recorded(id: string): Promise<Recorded[]> {
  return (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as Recorded[];
}

/** The wait is over: the delivery's next attempt is due now, and the alarm fires (and makes it). */
async function advance(agentId: string, deadlineId: string): Promise<void> {
  const moved = await runInDurableObject(
    agentObject(agentId),
    async (_instance: AgentDO, state) => state.storage.sql.exec("UPDATE deadlines SET due_at = ? WHERE id = ?", Date.now() - 1, deadlineId).rowsWritten,
  );
  expect(moved, `the deadline ${deadlineId} is armed`).toBe(1);
  await runDurableObjectAlarm(agentObject(agentId));
}

/** The attempt number the delivery's deadline holds next (undefined once it is gone). */
async function armedAttempt(agentId: string, deadlineId: string): Promise<number | undefined> {
  return runInDurableObject(agentObject(agentId), async (_instance: AgentDO, state) => {
    const row = state.storage.sql.exec<{ payload: string }>("SELECT payload FROM deadlines WHERE id = ?", deadlineId).toArray()[0];
    return row ? WebhookDeadline.shape.payload.parse(JSON.parse(row.payload)).attempt : undefined;
  });
}

const failedAttempt = (type: string, attempt: number) => (event: ReceivedEvent) => event.type === type && event.data.attempt === attempt;
const waitOf = (event: ReceivedEvent) => Date.parse(event.data.nextAttemptAt as string) - Date.parse(event.at);

async function agentReplies(spaceId: string, entityId: string): Promise<(string | undefined)[]> {
  const { body } = await secret<{ messages: { entityId: string; text?: string }[] }>(`/api/spaces/${spaceId}/messages?afterSeq=0`);
  return body.messages.filter((message) => message.entityId === entityId).map((message) => message.text);
}

const pushedTool = (webhook: string, execution: Record<string, unknown> = {}) => ({
  name: "fetchData",
  description: "Ask the external service",
  executionType: "external",
  isAsync: true,
  visible: false,
  inputSchema: { type: "object" },
  execution: { webhook, ...execution },
});

describe("pushed calls outlast outages", () => {
  it("a receiver down for longer than the old 15.5 s schedule gets the call once it is back, and the agent replies exactly once", async () => {
    const hookId = `down-long-${crypto.randomUUID()}`;
    // Nine refusals: three more than the six attempts the old schedule made in all.
    const world = await toolWorld([pushedTool(`http://hooks.test/down/9/${hookId}`)], (spaceId) => [
      { toolCalls: [{ name: "fetchData", args: { q: 1 } }, skip] },
      { toolCalls: [enter(spaceId), { name: "send_message", args: { text: "Got it" } }, skip] },
    ]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const toolCallId = pending.data.toolCallId as string;
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 9; attempt += 1) {
      const failed = await world.agentStream.waitFor(failedAttempt("tool.webhook.failed", attempt));
      expect(failed.data).toMatchObject({ toolCallId, willRetry: true });
      waits.push(waitOf(failed));
      await advance(world.agent.id, `webhook:${toolCallId}`);
    }
    const delivered = await world.agentStream.waitFor((event) => event.type === "tool.webhook.delivered");
    expect(delivered.data).toMatchObject({ toolCallId, attempt: 10 });
    // The waits grew (1 s doubling, jittered) and the receiver was down for far longer than 15.5 s of schedule.
    expect(waits[8]).toBeGreaterThan(waits[0] * 100);
    expect(waits.reduce((sum, wait) => sum + wait, 0)).toBeGreaterThan(15_500);
    const pushes = await recorded(hookId);
    expect(pushes.map((push) => push.headers["webhook-id"])).toEqual(Array(10).fill(toolCallId));
    expect(pushes.map((push) => Number(push.headers["x-switchboard-attempt"]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(new Webhook(standardSecretOf(env.WEBHOOK_SECRET)).verify(pushes[9].body, pushes[9].headers)).toMatchObject({ type: "tool.call", toolCallId });
    expect(await armedAttempt(world.agent.id, `webhook:${toolCallId}`)).toBeUndefined();

    // The receiver answers; an answer sent twice (a receiver that saw a push twice) is a duplicate.
    expect((await submitResult(pending.data.runId as string, toolCallId, { data: 42 })).status).toBe(200);
    expect((await submitResult(pending.data.runId as string, toolCallId, { data: 42 })).body).toMatchObject({ duplicate: true });
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", result: { data: 42 } }]);
    expect(await agentReplies(world.spaceId, world.agent.entityId)).toEqual(["Got it"]);
    world.close();
  });

  it("an agent object aborted between attempts still delivers the call, once it is back, with the same webhook-id", async () => {
    const hookId = `down-abort-${crypto.randomUUID()}`;
    // Seven refusals, and the object dies twice on the way, once past the old schedule's sixth and last attempt.
    const world = await toolWorld([pushedTool(`http://hooks.test/down/7/${hookId}`)], (spaceId) => [
      { toolCalls: [{ name: "fetchData", args: { q: 2 } }, skip] },
      { toolCalls: [enter(spaceId), { name: "send_message", args: { text: "Thanks" } }, skip] },
    ]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const toolCallId = pending.data.toolCallId as string;
    const deadlineId = `webhook:${toolCallId}`;
    await world.agentStream.waitFor(failedAttempt("tool.webhook.failed", 1));
    world.close();
    for (let next = 2; next <= 8; next += 1) {
      await waitUntil(async () => (await armedAttempt(world.agent.id, deadlineId)) === next, 5_000, `attempt ${next} armed`);
      // Between attempts: the next one is armed, then every object dies.
      if (next === 3 || next === 7) await abortAllDurableObjects();
      await advance(world.agent.id, deadlineId);
      await waitUntil(async () => (await recorded(hookId)).length >= next, 5_000, `attempt ${next} made`);
    }
    await waitUntil(async () => (await armedAttempt(world.agent.id, deadlineId)) === undefined, 5_000, "the delivery is over");
    const pushes = await recorded(hookId);
    expect(pushes.map((push) => push.headers["webhook-id"])).toEqual(Array(8).fill(toolCallId));
    expect(pushes.map((push) => Number(push.headers["x-switchboard-attempt"]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await submitResult(pending.data.runId as string, toolCallId, { data: 7 })).status).toBe(200);
    await waitForRuns(world.agent.id, 2);
    expect(await agentReplies(world.spaceId, world.agent.entityId)).toEqual(["Thanks"]);
  });

  it("a pushed call whose deadline passes undelivered lands in the dead-letter list; it cannot be redelivered once expired", async () => {
    const hookId = `down-forever-${crypto.randomUUID()}`;
    const world = await toolWorld([pushedTool(`http://hooks.test/down/1000/${hookId}`, { expiresIn: 1_500 })], () => [
      { toolCalls: [{ name: "fetchData", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const toolCallId = pending.data.toolCallId as string;
    // The last retry is brought forward to the call's deadline: it gives up then, without waiting for the next backoff.
    const dead = await world.agentStream.waitForType("tool.webhook.dead_lettered", 10_000);
    expect(dead.data).toMatchObject({ toolCallId, error: expect.stringMatching(/expired|deadline/) });
    const listed = await secret<{ deadLetters: DeadLetter[] }>(`/api/webhooks/dead-letters?agentId=${world.agent.id}`);
    expect(listed.body.deadLetters).toMatchObject([
      { id: dead.data.deadLetterId, source: "tool_call", toolCallId, webhookId: toolCallId, type: "tool.call", status: "dead", subscriptionId: null },
    ]);
    expect(listed.body.deadLetters[0].attempts).toBeGreaterThanOrEqual(1);
    await waitUntil(
      async () => (await secret<{ pendingToolCalls: { status: string }[] }>(`/api/agents/${world.agent.id}/pending-tool-calls?status=expired`)).body.pendingToolCalls.length === 1,
      5_000,
      "the call expired",
    );
    const refused = await secret(`/api/webhooks/dead-letters/${dead.data.deadLetterId as string}/redeliver`, { body: {} });
    expect(refused.status).toBe(410);
    expect(refused.body).toMatchObject({ error: { code: "gone" } });
    world.close();
  });
});

describe("subscription events: a schedule of hours, then the dead-letter list", () => {
  it("a delivery that exhausts its schedule shows in the dead-letter list, and a redelivery reaches the receiver once", async () => {
    const hookId = `down-eight-${crypto.randomUUID()}`;
    const world = await toolWorld([], () => [{ toolCalls: [skip] }]);
    const created = await secret<{ id: string; secret: string }>("/api/webhooks", {
      body: { url: `http://hooks.test/down/8/${hookId}`, events: ["run.completed"], agentId: world.agent.id },
    });
    expect(created.status).toBe(201);
    const subscription = created.body;
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const webhookId = `evt_${run.id}_completed`;
    const deadlineId = `webhook:${webhookId}:${subscription.id}`;
    for (let attempt = 1; attempt <= 7; attempt += 1) {
      const failed = await world.agentStream.waitFor(failedAttempt("webhook.failed", attempt));
      expect(failed.data).toMatchObject({ subscriptionId: subscription.id, webhookId, willRetry: true });
      // The wait before the next attempt is the schedule's, within its jitter.
      const planned = subscriptionScheduleMs[attempt];
      expect(waitOf(failed)).toBeGreaterThanOrEqual(planned * 0.8 - 50);
      expect(waitOf(failed)).toBeLessThanOrEqual(planned * 1.2);
      await advance(world.agent.id, deadlineId);
    }
    const last = await world.agentStream.waitFor(failedAttempt("webhook.failed", 8));
    expect(last.data).toMatchObject({ willRetry: false });
    const dead = await world.agentStream.waitForType("webhook.dead_lettered");
    expect(dead.data).toMatchObject({ subscriptionId: subscription.id, webhookId, attempts: 8 });
    expect(await armedAttempt(world.agent.id, deadlineId)).toBeUndefined();
    expect((await recorded(hookId)).length).toBe(8);

    const listed = await secret<{ deadLetters: DeadLetter[]; nextCursor: string | null }>(`/api/webhooks/dead-letters?subscriptionId=${subscription.id}`);
    expect(listed.body).toMatchObject({
      nextCursor: null,
      deadLetters: [
        {
          id: dead.data.deadLetterId,
          source: "subscription",
          agentId: world.agent.id,
          subscriptionId: subscription.id,
          webhookId,
          type: "run.completed",
          status: "dead",
          attempts: 8,
          lastError: expect.stringContaining("HTTP 500"),
          redeliveries: 0,
        },
      ],
    });
    const deadLetterId = listed.body.deadLetters[0].id;

    // Redelivered (with an Idempotency-Key, as a client that may retry sends it).
    const headers = { "x-secret-key": env.GATEWAY_SECRET_KEY, "idempotency-key": `redeliver-${deadLetterId}` };
    const redelivered = await call(`/api/webhooks/dead-letters/${deadLetterId}/redeliver`, { body: {}, headers });
    expect(redelivered.status).toBe(200);
    expect(await redelivered.json()).toMatchObject({ id: deadLetterId, status: "redelivering", redeliveries: 1 });
    const delivered = await world.agentStream.waitForType("webhook.delivered");
    expect(delivered.data).toMatchObject({ subscriptionId: subscription.id, webhookId, attempt: 1 });
    await waitUntil(
      async () => (await secret<{ deadLetters: DeadLetter[] }>(`/api/webhooks/dead-letters?subscriptionId=${subscription.id}`)).body.deadLetters[0]?.status === "delivered",
      5_000,
      "the dead letter marked delivered",
    );
    const pushes = await recorded(hookId);
    expect(pushes.length).toBe(9);
    expect(new Webhook(subscription.secret).verify(pushes[8].body, pushes[8].headers)).toMatchObject({ type: "run.completed", data: { runId: run.id } });
    expect(pushes[8].headers["webhook-id"]).toBe(webhookId);

    // Asked again (a retry with the same key, or a new request): nothing more is started.
    const replayed = await call(`/api/webhooks/dead-letters/${deadLetterId}/redeliver`, { body: {}, headers });
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    const again = await secret<DeadLetter>(`/api/webhooks/dead-letters/${deadLetterId}/redeliver`, { body: {} });
    expect(again).toMatchObject({ status: 200, body: { status: "delivered", redeliveries: 1 } });
    expect(await armedAttempt(world.agent.id, deadlineId)).toBeUndefined();
    expect((await recorded(hookId)).length).toBe(9);
    world.close();
  });
});

describe("dead-letter routes", () => {
  /** A dead letter as an agent object lands it (its delivery is not driven here). */
  async function landed(agentId: string, overrides: Partial<typeof webhookDeadLetters.$inferInsert> = {}) {
    const id = await deadLetterIdOf(crypto.randomUUID());
    await getDatabase(env.DB)
      .insert(webhookDeadLetters)
      .values({
        id,
        source: "subscription",
        agentId,
        webhookId: `evt_${crypto.randomUUID()}`,
        type: "run.completed",
        url: "http://hooks.test/in/never",
        body: "{}",
        attempts: 8,
        lastError: "HTTP 500",
        status: "dead",
        firstAttemptAt: new Date().toISOString(),
        deadAt: new Date().toISOString(),
        ...overrides,
      });
    return id;
  }

  it("list newest first, one page at a time, filtered by agent, subscription and status", async () => {
    const agent = await createAgent({ agent: { name: "Paged" }, model: { provider: "scripted", turns: [] } });
    const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 0, minutes)).toISOString();
    const oldest = await landed(agent.id, { deadAt: at(1) });
    const middle = await landed(agent.id, { deadAt: at(2), status: "delivered" });
    const newest = await landed(agent.id, { deadAt: at(3) });
    const first = await secret<{ deadLetters: DeadLetter[]; nextCursor: string | null }>(`/api/webhooks/dead-letters?agentId=${agent.id}&limit=2`);
    expect(first.body.deadLetters.map((row) => row.id)).toEqual([newest, middle]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await secret<{ deadLetters: DeadLetter[]; nextCursor: string | null }>(
      `/api/webhooks/dead-letters?agentId=${agent.id}&limit=2&cursor=${first.body.nextCursor ?? ""}`,
    );
    expect(second.body).toEqual({ deadLetters: [expect.objectContaining({ id: oldest })], nextCursor: null });
    const dead = await secret<{ deadLetters: DeadLetter[] }>(`/api/webhooks/dead-letters?agentId=${agent.id}&status=dead`);
    expect(dead.body.deadLetters.map((row) => row.id)).toEqual([newest, oldest]);
    // An agent's dead letters go with it.
    expect((await secret(`/api/agents/${agent.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await secret<{ deadLetters: DeadLetter[] }>(`/api/webhooks/dead-letters?agentId=${agent.id}`)).body.deadLetters).toEqual([]);
  });

  it("refuse bad input with the error envelope, other callers, unknown ids, and a deleted subscription", async () => {
    const agent = await createAgent({ agent: { name: "Refused" }, model: { provider: "scripted", turns: [] } });
    const person = await createHuman();
    const headers = { "x-secret-key": env.GATEWAY_SECRET_KEY };
    const badQueries = ["status=lost", "limit=0", "limit=201", "limit=ten", "cursor=not-a-cursor", "subscriptionId=whk_nope"];
    for (const query of badQueries) {
      const response = await call(`/api/webhooks/dead-letters?${query}`, { headers });
      expect(response.status, query).toBe(400);
      await readErrorEnvelope(response);
    }
    expect((await call("/api/webhooks/dead-letters")).status).toBe(401);
    expect((await call("/api/webhooks/dead-letters", { headers: await memberHeaders(person) })).status).toBe(403);

    const unknown = await call(`/api/webhooks/dead-letters/dlt_${"0".repeat(32)}/redeliver`, { body: {}, headers });
    expect(unknown.status).toBe(404);
    await readErrorEnvelope(unknown, "not_found");
    await readErrorEnvelope(await call("/api/webhooks/dead-letters/whk_1/redeliver", { body: {}, headers }), "validation_error");

    const subscription = await secret<{ id: string }>("/api/webhooks", { body: { url: "http://hooks.test/in/deleted", events: ["run.failed"], agentId: agent.id } });
    const id = await landed(agent.id, { subscriptionId: subscription.body.id });
    await readErrorEnvelope(await call(`/api/webhooks/dead-letters/${id}/redeliver`, { body: { now: true }, headers }), "validation_error");
    expect((await call(`/api/webhooks/dead-letters/${id}/redeliver`, { body: {}, headers: await memberHeaders(person) })).status).toBe(403);
    expect((await secret(`/api/webhooks/${subscription.body.id}`, { method: "DELETE" })).status).toBe(200);
    const gone = await call(`/api/webhooks/dead-letters/${id}/redeliver`, { body: {}, headers });
    expect(gone.status).toBe(410);
    await readErrorEnvelope(gone, "gone");
    // Nothing was written: it is still dead, never redelivered.
    expect((await secret<{ deadLetters: DeadLetter[] }>(`/api/webhooks/dead-letters?agentId=${agent.id}`)).body.deadLetters).toMatchObject([
      { id, status: "dead", redeliveries: 0 },
    ]);
  });
});
