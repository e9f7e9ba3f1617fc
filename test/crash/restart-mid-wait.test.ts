import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { agentObject, agentState, listRuns, waitForRuns, waitUntil } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

const waitingTool = (overrides: Record<string, unknown> = {}) => ({
  name: "fetchData",
  description: "Ask the external service",
  executionType: "external",
  visible: false,
  timeout: 20_000,
  inputSchema: { type: "object", properties: { query: { type: "string" } } },
  ...overrides,
});

type PendingRow = { toolCallId: string; modelToolCallId: string; runId: string; status: string };

async function pendingCalls(agentId: string): Promise<PendingRow[]> {
  const { body } = await secret<{ pendingToolCalls: PendingRow[] }>(`/api/agents/${agentId}/pending-tool-calls`);
  return body.pendingToolCalls;
}

describe("a restart in the middle of a wait", () => {
  it("continues the same run: the call is not issued again, and a result posted after the restart reaches it", async () => {
    const world = await toolWorld([waitingTool()], (spaceId) => [
      { toolCalls: [{ name: "fetchData", args: { query: "slow" } }] },
      { toolCalls: [enter(spaceId), { name: "send_message", args: { text: "Done" } }, skip] },
    ]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const { runId, toolCallId } = pending.data as { runId: string; toolCallId: string };
    expect(toolCallId).toMatch(/^call_[0-9a-f]{32}$/);
    expect(pending.data.modelToolCallId).not.toBe(toolCallId);

    // The object dies mid-wait (a crash or a deploy): in-memory waiters and timers are gone.
    await abortAllDurableObjects();
    // While the cycle ran, the heartbeat kept the alarm a few seconds ahead: its firing starts a fresh instance.
    expect(await runDurableObjectAlarm(agentObject(world.agent.id))).toBe(true);
    // The journal (attempt, step, open calls) has no route: read inside the object.
    const recovered = await agentState(world.agent.id);
    expect(recovered.activeRun).toMatchObject({ runId, attempt: 2, step: 0 });
    expect(recovered.openCalls).toMatchObject([{ toolCallId, toolName: "fetchData" }]);

    expect((await submitResult(runId, toolCallId, { finally: true })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.id).toBe(runId);
    expect(run.status).toBe("completed");
    const fetches = run.toolCalls.filter((call) => call.toolName === "fetchData");
    expect(fetches).toMatchObject([{ toolCallId, result: { finally: true }, status: "completed" }]);
    expect(run.toolCalls.filter((call) => call.toolName === "send_message")).toHaveLength(1);
    expect(run.notes.map((note) => note.kind)).toEqual(expect.arrayContaining(["recovered", "redone"]));
    // Exactly one pending call, resolved; no tool_result event made a second run.
    expect(await pendingCalls(world.agent.id)).toMatchObject([{ toolCallId, status: "resolved" }]);
    expect(await listRuns(world.agent.id)).toHaveLength(1);
    const messages = await secret<{ messages: { text?: string; entityId: string }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(messages.body.messages.filter((message) => message.entityId === world.agent.entityId)).toMatchObject([{ text: "Done" }]);
    world.close();
  });

  it("a result accepted just before the crash reaches the continued run, which does not call the tool again", async () => {
    const world = await toolWorld([waitingTool()], (spaceId) => [
      { toolCalls: [{ name: "fetchData", args: { query: "answer" } }] },
      { toolCalls: [enter(spaceId), { name: "send_message", args: { text: "Got it" } }, skip] },
    ]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    expect((await submitResult(runId, toolCallId, { answer: 42 })).status).toBe(200);
    // Dies right after the 200, before (or while) the cycle continues.
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.status).toBe("completed");
    expect(run.toolCalls.filter((call) => call.toolName === "fetchData")).toMatchObject([{ toolCallId, result: { answer: 42 } }]);
    expect(await pendingCalls(world.agent.id)).toHaveLength(1);
    const messages = await secret<{ messages: { text?: string; entityId: string }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    expect(messages.body.messages.filter((message) => message.entityId === world.agent.entityId).map((message) => message.text)).toEqual(["Got it"]);
    expect((await submitResult(runId, toolCallId, { answer: 42 })).body).toMatchObject({ success: true, duplicate: true });
    world.close();
  });

  it("a wait whose timeout passed while the object was down ends with the timeout, and the late result reaches the inbox", async () => {
    const world = await toolWorld([waitingTool({ timeout: 400 })], () => [
      { toolCalls: [{ name: "fetchData", args: { query: "slow" } }] },
      { toolCalls: [skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));
    const [run] = await waitForRuns(world.agent.id, 1, 10_000);
    expect(run.toolCalls[0]).toMatchObject({ toolCallId, result: { error: 'Tool "fetchData" timed out after 400ms' } });
    await waitUntil(async () => (await pendingCalls(world.agent.id))[0]?.status === "pending", 5_000, "the call turns pending");
    expect((await submitResult(runId, toolCallId, { late: true })).status).toBe(200);
    const [, second] = await waitForRuns(world.agent.id, 2, 10_000);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId, result: { late: true } }]);
    world.close();
  });
});
