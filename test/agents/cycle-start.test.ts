import { describe, expect, it } from "vitest";
import { agentState, listRuns, waitForRuns, waitUntil } from "../support/agents";
import { skip, submitResult, toolWorld } from "../support/tool-world";

/** A cycle owed with nothing else to do first starts at once; the alarm still holds it. */
describe("a cycle started at once", () => {
  it("is held by the object's alarm while it runs (so a dead object comes back to it), and ends with the alarm set for what is next", async () => {
    const waitingTool = { name: "lookup", description: "Answered by a service", executionType: "external", visible: false, timeout: 60_000, inputSchema: { type: "object" } };
    const world = await toolWorld([waitingTool], () => [{ toolCalls: [{ name: "lookup", args: {} }] }, { toolCalls: [skip] }]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const { toolCallId, runId } = pending.data as { toolCallId: string; runId: string };
    // The run's record says it is running (written while the cycle starts thinking).
    await waitUntil(async () => (await listRuns(world.agent.id)).some((run) => run.id === runId && run.status === "running"), 5_000, "the run listed as running");
    // No route shows the object's alarm or its deadline table: read inside the object.
    const during = await agentState(world.agent.id);
    // Set: either still the "now" the inbox set (the alarm has not fired yet) or the heartbeat's, at most 10 s ahead.
    expect(during.alarm).not.toBeNull();
    expect(during.alarm as number).toBeLessThanOrEqual(Date.now() + 10_000 + 1_000);
    expect((await submitResult(runId, toolCallId, { found: true })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.status).toBe("completed");
    // Nothing owed and no deadline: the cycle leaves no alarm behind.
    await waitUntil(async () => (await agentState(world.agent.id)).alarm === null, 5_000, "the alarm cleared after the cycle");
    expect((await agentState(world.agent.id)).deadlines).toEqual([]);
    world.close();
  });
});
