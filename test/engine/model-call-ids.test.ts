import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { settledRuns, waitForRuns } from "../support/agents";
import { skip, submitResult, toolWorld } from "../support/tool-world";

const asyncTool = { name: "wait_tool", description: "Answered later", executionType: "external", isAsync: true, visible: false, inputSchema: { type: "object" } };

describe("model call ids", () => {
  it("two agents whose model reuses one call id each get their own pending call, answered separately", async () => {
    const reused = { name: "wait_tool", args: {}, id: "fc_3_wait_tool" };
    const first = await toolWorld([asyncTool], () => [{ toolCalls: [reused, skip] }, { toolCalls: [skip] }]);
    const second = await toolWorld([asyncTool], () => [{ toolCalls: [reused, skip] }, { toolCalls: [skip] }]);
    await Promise.all([first.wake(), second.wake()]);
    const [runA] = await waitForRuns(first.agent.id, 1);
    const [runB] = await waitForRuns(second.agent.id, 1);
    const callA = runA.toolCalls.find((call) => call.toolName === "wait_tool");
    const callB = runB.toolCalls.find((call) => call.toolName === "wait_tool");
    expect(callA).toMatchObject({ modelToolCallId: "fc_3_wait_tool", status: "pending" });
    expect(callB).toMatchObject({ modelToolCallId: "fc_3_wait_tool", status: "pending" });
    expect(callA?.toolCallId).not.toBe(callB?.toolCallId);
    for (const [world, run, call, value] of [
      [first, runA, callA, "a"],
      [second, runB, callB, "b"],
    ] as const) {
      const { body } = await secret<{ pendingToolCalls: { toolCallId: string; modelToolCallId: string; status: string }[] }>(`/api/agents/${world.agent.id}/pending-tool-calls`);
      expect(body.pendingToolCalls).toMatchObject([{ toolCallId: call?.toolCallId, modelToolCallId: "fc_3_wait_tool", status: "pending" }]);
      expect((await submitResult(run.id, call?.toolCallId ?? "", { for: value })).status).toBe(200);
    }
    const runsA = await settledRuns(first.agent.id);
    const runsB = await settledRuns(second.agent.id);
    expect(runsA[1].trigger).toMatchObject([{ type: "tool_result", result: { for: "a" } }]);
    expect(runsB[1].trigger).toMatchObject([{ type: "tool_result", result: { for: "b" } }]);
    // Nothing about the collision reached a model, a record or a client.
    expect(JSON.stringify([runsA, runsB])).not.toMatch(/SQLITE|constraint|D1_/);
    first.close();
    second.close();
  });
});
