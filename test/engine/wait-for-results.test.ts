import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentObject, settledRuns, waitForRuns } from "../support/agents";
import { skip, submitResult, toolWorld } from "../support/tool-world";

const later = { name: "later", description: "Answered later", executionType: "external", isAsync: true, visible: false, inputSchema: { type: "object" } };

type WaitResult = { complete: boolean; results: { callId: string; status: string; result?: unknown }[] };

describe("wait_for_results", () => {
  it("waits for all of several pending calls; their results come to the cycle, not the inbox", async () => {
    const world = await toolWorld([later], () => [
      {
        toolCalls: [
          { name: "later", args: { n: 1 }, id: "fc_a" },
          { name: "later", args: { n: 2 }, id: "fc_b" },
        ],
      },
      { toolCalls: [{ name: "wait_for_results", args: { callIds: ["fc_a", "fc_b"], mode: "all", timeoutMs: 20_000 } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    await world.agentStream.waitFor((event) => event.type === "tool.requested" && event.data.toolName === "wait_for_results");
    const pending = world.agentStream.ofType("tool.pending").map((event) => event.data as { runId: string; toolCallId: string });
    expect(pending).toHaveLength(2);
    for (const [index, call] of pending.entries()) expect((await submitResult(call.runId, call.toolCallId, { answer: index })).status).toBe(200);
    const runs = await settledRuns(world.agent.id);
    expect(runs).toHaveLength(1);
    const waited = runs[0].toolCalls.find((call) => call.toolName === "wait_for_results")?.result as WaitResult;
    expect(waited.complete).toBe(true);
    expect(waited.results.map((entry) => entry.result).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([{ answer: 0 }, { answer: 1 }]);
    world.close();
  });

  it("any returns at the first result; at the deadline the rest go back to the inbox, and results that came before are not delivered twice", async () => {
    const world = await toolWorld([later], () => [
      {
        toolCalls: [
          { name: "later", args: {}, id: "fc_1" },
          { name: "later", args: {}, id: "fc_2" },
          { name: "later", args: {}, id: "fc_3" },
        ],
      },
      { toolCalls: [{ name: "wait_for_results", args: { callIds: ["fc_1", "fc_2"], mode: "any", timeoutMs: 20_000 } }] },
      { toolCalls: [{ name: "wait_for_results", args: { callIds: ["fc_2", "fc_3"], mode: "all", timeoutMs: 300 } }] },
      { toolCalls: [skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const pending = await Promise.all(
      [0, 1, 2].map((index) => world.agentStream.waitFor((event) => event.type === "tool.pending" && world.agentStream.ofType("tool.pending").length > index)),
    );
    const calls = world.agentStream.ofType("tool.pending").map((event) => event.data as { runId: string; toolCallId: string; modelToolCallId: string });
    const byModel = Object.fromEntries(calls.map((call) => [call.modelToolCallId, call]));
    expect(pending).toHaveLength(3);
    // fc_3 answers before anyone waits for it: its tool_result is queued, then taken by the second wait.
    expect((await submitResult(byModel.fc_3.runId, byModel.fc_3.toolCallId, { third: true })).status).toBe(200);
    await world.agentStream.waitFor((event) => event.type === "tool.requested" && event.data.toolName === "wait_for_results");
    expect((await submitResult(byModel.fc_1.runId, byModel.fc_1.toolCallId, { first: true })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    const [anyWait, allWait] = run.toolCalls.filter((call) => call.toolName === "wait_for_results").map((call) => call.result as WaitResult);
    expect(anyWait).toMatchObject({ complete: false, results: [{ status: "resolved", result: { first: true } }, { status: "pending" }] });
    expect(allWait).toMatchObject({ complete: false, results: [{ status: "pending" }, { status: "resolved", result: { third: true } }] });
    // fc_2 answers after every wait ended: it reaches the inbox, once; fc_3 never reaches it.
    expect((await submitResult(byModel.fc_2.runId, byModel.fc_2.toolCallId, { second: true })).status).toBe(200);
    const runs = await settledRuns(world.agent.id);
    expect(
      runs
        .flatMap((entry) => entry.trigger)
        .filter((event) => event.type === "tool_result")
        .map((event) => event.result),
    ).toEqual([{ second: true }]);
    world.close();
  });

  it("a restart during the wait: the continued cycle waits again and gets the result", async () => {
    const world = await toolWorld([later], () => [
      { toolCalls: [{ name: "later", args: {}, id: "fc_r" }] },
      { toolCalls: [{ name: "wait_for_results", args: { callIds: ["fc_r"], timeoutMs: 20_000 } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const call = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    await world.agentStream.waitFor((event) => event.type === "tool.requested" && event.data.toolName === "wait_for_results");
    await abortAllDurableObjects();
    await runDurableObjectAlarm(agentObject(world.agent.id));
    expect((await submitResult(call.runId, call.toolCallId, { after: "restart" })).status).toBe(200);
    const runs = await settledRuns(world.agent.id, 15_000);
    expect(runs).toHaveLength(1);
    expect(runs[0].toolCalls.find((entry) => entry.toolName === "wait_for_results")?.result).toMatchObject({ complete: true, results: [{ result: { after: "restart" } }] });
    world.close();
  });
});
