import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentDO } from "../../src/agents/agent-do";
import { AgentStorage } from "../../src/agents/agent-storage";
import { secret } from "../support/api";
import { agentObject, agentState, createAgent, listRuns, waitForRuns, waitUntil } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Recorded = { headers: Record<string, string>; body: string };

async function recorded(id: string): Promise<Recorded[]> {
  return (await (await fetch(`http://hooks.test/recorded/${id}`)).json()) as Recorded[];
}

async function pendingCalls(agentId: string) {
  const { body } = await secret<{ pendingToolCalls: { toolCallId: string; runId: string; status: string; result: unknown }[] }>(`/api/agents/${agentId}/pending-tool-calls`);
  return body.pendingToolCalls;
}

/** Kills every object, then fires the agent's alarm as the runtime would after its heartbeat. */
async function crash(agentId: string): Promise<void> {
  await abortAllDurableObjects();
  await runDurableObjectAlarm(agentObject(agentId));
}

describe("a transition cut short by a crash", () => {
  it("a result staged and written to D1, but not yet delivered, is delivered by the alarm after the restart", async () => {
    const asyncTool = { name: "later", description: "Answered later", executionType: "external", isAsync: true, visible: false, inputSchema: { type: "object" } };
    const world = await toolWorld([asyncTool], () => [{ toolCalls: [{ name: "later", args: {} }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls[0].toolCallId;
    // Exactly the state a crash between the D1 transition and the delivery leaves behind.
    await runInDurableObject(agentObject(world.agent.id), async (_instance: AgentDO, state) => {
      new AgentStorage(state.storage).stage(callId, { type: "ok", value: { staged: true } }, Date.now());
    });
    await env.DB.prepare("UPDATE pending_tool_calls SET status = 'resolved', result = ? WHERE tool_call_id = ?")
      .bind(JSON.stringify({ staged: true }), callId)
      .run();
    await crash(world.agent.id);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId: callId, result: { staged: true } }]);
    // Staged outcomes live only in the object: no route shows them.
    expect((await agentState(world.agent.id)).staged).toBe(0);
    // The submitter's retry is a duplicate, never a second delivery.
    expect((await submitResult(run.id, callId, { staged: true })).body).toMatchObject({ duplicate: true });
    expect(await listRuns(world.agent.id)).toHaveLength(2);
    world.close();
  });

  it("a result staged long ago whose D1 transition never happened is dropped: nothing changed, the call stays answerable", async () => {
    const asyncTool = { name: "later", description: "Answered later", executionType: "external", isAsync: true, visible: false, inputSchema: { type: "object" } };
    const world = await toolWorld([asyncTool], () => [{ toolCalls: [{ name: "later", args: {} }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls[0].toolCallId;
    await runInDurableObject(agentObject(world.agent.id), async (_instance: AgentDO, state) => {
      new AgentStorage(state.storage).stage(callId, { type: "ok", value: { lost: true } }, Date.now() - 60_000);
    });
    await crash(world.agent.id);
    expect((await agentState(world.agent.id)).staged).toBe(0);
    expect(await pendingCalls(world.agent.id)).toMatchObject([{ toolCallId: callId, status: "pending" }]);
    expect((await submitResult(run.id, callId, { real: true })).status).toBe(200);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", result: { real: true } }]);
    world.close();
  });
});

describe("calls done again after a crash", () => {
  it("a gateway request cut off by a crash is sent again with the same idempotency key, and the run continues once", async () => {
    const hookId = `hang-${crypto.randomUUID()}`;
    const gateway = {
      name: "charge",
      description: "Charge the card",
      executionType: "gateway",
      visible: true,
      inputSchema: { type: "object" },
      execution: { url: `http://api.test/hang-once/${hookId}`, method: "POST" },
    };
    const world = await toolWorld([gateway], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "charge", args: { amount: 5 } }] }, { toolCalls: [skip] }], {
      toolTimeout: 20_000,
    });
    await world.wake();
    await waitUntil(async () => (await recorded(hookId)).length === 1, 5_000, "the first request");
    await crash(world.agent.id);
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.status).toBe("completed");
    const requests = await recorded(hookId);
    expect(requests).toHaveLength(2);
    const charge = run.toolCalls.find((call) => call.toolName === "charge");
    expect(charge).toMatchObject({ status: "completed", result: { ok: true, attempt: 2 } });
    expect(requests.map((request) => request.headers["idempotency-key"])).toEqual([charge?.toolCallId, charge?.toolCallId]);
    // One card for the call, and it completed.
    const messages = await secret<{ messages: { role: string; parts?: { toolCallId: string; status: string }[] }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(messages.body.messages.filter((message) => message.role === "tool")).toMatchObject([{ parts: [{ toolCallId: charge?.toolCallId, status: "complete" }] }]);
    world.close();
  });

  it("a webhook that was failing keeps its delivery id and attempt count after a crash; the call is never issued twice", async () => {
    const hookId = `down-${crypto.randomUUID()}`;
    const tool = {
      name: "fetchData",
      description: "Ask the external service",
      executionType: "external",
      visible: false,
      timeout: 20_000,
      inputSchema: { type: "object" },
      execution: { webhook: `http://hooks.test/down/2/${hookId}` },
    };
    const world = await toolWorld([tool], (spaceId) => [
      { toolCalls: [{ name: "fetchData", args: { query: 1 } }] },
      { toolCalls: [enter(spaceId), { name: "send_message", args: { text: "Thanks" } }, skip] },
    ]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.webhook.failed")).data as { runId?: string; toolCallId: string };
    await crash(world.agent.id);
    await waitUntil(async () => (await recorded(hookId)).length >= 3, 10_000, "the webhook retried after the restart until it got through");
    const deliveries = await recorded(hookId);
    expect(deliveries.map((delivery) => delivery.headers["x-switchboard-delivery"])).toEqual([toolCallId, toolCallId, toolCallId]);
    expect(deliveries.map((delivery) => Number(delivery.headers["x-switchboard-attempt"]))).toEqual([1, 2, 3]);
    const call = (await pendingCalls(world.agent.id))[0];
    expect(await pendingCalls(world.agent.id)).toHaveLength(1);
    expect((await submitResult(call.runId, toolCallId, { data: 1 })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.id).toBe(runId ?? call.runId);
    const replies = await secret<{ messages: { entityId: string; text?: string }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(replies.body.messages.filter((message) => message.entityId === world.agent.entityId).map((message) => message.text)).toEqual(["Thanks"]);
    world.close();
  });
});

describe("recovery has a cap", () => {
  it("a run interrupted on every attempt fails after three, keeps its events, and closes its card", async () => {
    const gateway = {
      name: "stuck",
      description: "Never answers",
      executionType: "gateway",
      visible: true,
      inputSchema: { type: "object" },
      execution: { url: "http://api.test/hang", method: "POST" },
    };
    const world = await toolWorld([gateway], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "stuck", args: {} }] }], { toolTimeout: 60_000 });
    await world.wake();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      // Wait until this attempt is inside the call (the journal's open calls: no route shows them), then kill it.
      await waitUntil(
        async () => {
          const state = await agentState(world.agent.id);
          return state.activeRun?.attempt === attempt && state.activeRun.running && state.openCalls.some((call) => call.toolName === "stuck");
        },
        8_000,
        `attempt ${attempt} in the call`,
      );
      await crash(world.agent.id);
    }
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/interrupted 3 time/);
    expect(run.trigger).toMatchObject([{ type: "external", data: { go: true } }]);
    expect(run.notes.filter((note) => note.kind === "recovered")).toHaveLength(3);
    expect(run.toolCalls.find((call) => call.toolName === "stuck")).toMatchObject({ status: "failed" });
    // The inbox and the journal, which no route shows: both emptied.
    const state = await agentState(world.agent.id);
    expect(state).toMatchObject({ pending: 0, activeRun: undefined });
    const messages = await secret<{ messages: { role: string; status: string }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(messages.body.messages.filter((message) => message.role === "tool").map((message) => message.status)).toEqual(["error"]);
    world.close();
  });
});

describe("a run record that could not be written", () => {
  it("is written again by the alarm, and the run's events are never run twice", async () => {
    const agent = await createAgent({ agent: { name: "Recorder" }, model: { provider: "scripted", turns: [{ toolCalls: [skip] }] } });
    // As a crash right after the end was committed leaves it: inbox done, the record queued, D1 not written.
    const record = {
      runId: "run_queued_record",
      agentId: agent.id,
      agentEntityId: agent.entityId,
      status: "completed",
      trigger: [{ type: "external", data: { once: true } }],
      steps: [],
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      error: null,
      notes: [],
      d1Statements: 3,
      finishedAt: new Date().toISOString(),
    };
    await runInDurableObject(agentObject(agent.id), async (_instance: AgentDO, state) => {
      const storage = new AgentStorage(state.storage);
      storage.write("run_record:run_queued_record", record);
      storage.setDeadline({ id: "run_record:run_queued_record", kind: "run_record", dueAt: Date.now(), payload: { runId: "run_queued_record", attempt: 1 } });
      await state.storage.setAlarm(Date.now());
    });
    await crash(agent.id);
    const runs = await waitForRuns(agent.id, 1);
    expect(runs).toMatchObject([{ id: "run_queued_record", status: "completed", trigger: [{ data: { once: true } }] }]);
    // No route shows the deadline table: the record's retry is gone from it.
    expect((await agentState(agent.id)).deadlines).toEqual([]);
  });
});
