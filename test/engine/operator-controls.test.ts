import { describe, expect, it } from "vitest";
import { call, secret, secretHeaders } from "../support/api";
import { settledRuns, waitForRuns } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

const later = { name: "later", description: "Answered later", executionType: "external", isAsync: true, inputSchema: { type: "object" } };
const hold = { name: "hold", description: "Busy", executionType: "external", visible: false, timeout: 20_000, inputSchema: { type: "object" } };

type Call = { toolCallId: string; agentId: string; status: string; kind: string; toolName: string };

describe("operator controls", () => {
  it("lists pending calls across agents, filtered by agent, tool, status and age", async () => {
    const world = await toolWorld([{ ...later, visible: false }], () => [{ toolCalls: [{ name: "later", args: {} }, skip] }]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    const mine = await secret<{ pendingToolCalls: Call[] }>(`/api/pending-tool-calls?agentId=${world.agent.id}&toolName=later`);
    expect(mine.body.pendingToolCalls).toMatchObject([{ agentId: world.agent.id, toolName: "later", status: "pending", kind: "call" }]);
    expect((await secret<{ pendingToolCalls: Call[] }>(`/api/pending-tool-calls?agentId=${world.agent.id}&olderThanMs=3600000`)).body.pendingToolCalls).toEqual([]);
    expect((await secret<{ pendingToolCalls: Call[] }>(`/api/pending-tool-calls?agentId=${world.agent.id}&status=resolved`)).body.pendingToolCalls).toEqual([]);
    world.close();
  });

  it("cancel: the agent gets the cancellation, the card shows it, a later answer conflicts; every action is on the run", async () => {
    const world = await toolWorld([hold], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "hold", args: {} }] }, { toolCalls: [skip] }]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    const cancelled = await secret(`/api/pending-tool-calls/${toolCallId}/cancel`, { body: { reason: "stuck" } });
    expect(cancelled).toMatchObject({ status: 200, body: { success: true, status: "resolved" } });
    expect((await secret(`/api/pending-tool-calls/${toolCallId}/cancel`, { body: {} })).status).toBe(409);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((call) => call.toolName === "hold")).toMatchObject({ status: "failed", error: expect.stringContaining("cancelled by an operator: stuck") });
    expect(run.notes).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "operator", message: expect.stringContaining('"cancel"') })]));
    expect((await submitResult(runId, toolCallId, { late: true })).status).toBe(409);
    world.close();
  });

  it("expire now, and redeliver a settled result to the inbox (noted on the finished run)", async () => {
    const world = await toolWorld([{ ...later, visible: false }], () => [
      { toolCalls: [{ name: "later", args: {} }, { name: "later", args: {} }, skip] },
      { toolCalls: [skip] },
      { toolCalls: [skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const [first, second] = run.toolCalls.filter((call) => call.toolName === "later").map((call) => call.toolCallId);
    expect((await secret(`/api/pending-tool-calls/${first}/expire`, { body: { reason: "too old" } })).body).toMatchObject({ status: "expired" });
    expect((await submitResult(run.id, first, { late: 1 })).status).toBe(410);
    expect((await submitResult(run.id, second, { answer: 2 })).status).toBe(200);
    await settledRuns(world.agent.id);
    expect((await secret(`/api/pending-tool-calls/${second}/redeliver`, { body: {} })).status).toBe(200);
    const runs = await settledRuns(world.agent.id);
    const results = runs.flatMap((entry) => entry.trigger).filter((event) => event.type === "tool_result" && event.toolCallId === second);
    expect(results.map((event) => event.result)).toEqual([{ answer: 2 }, { answer: 2 }]);
    // An operator's retry under the same Idempotency-Key delivers once more, not twice.
    const keyed = { "idempotency-key": `redeliver-${second}` };
    expect((await secret(`/api/pending-tool-calls/${second}/redeliver`, { body: {}, headers: keyed })).status).toBe(200);
    const retried = await call(`/api/pending-tool-calls/${second}/redeliver`, { body: {}, headers: { ...secretHeaders, ...keyed } });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    const after = await settledRuns(world.agent.id);
    expect(after.flatMap((entry) => entry.trigger).filter((event) => event.type === "tool_result" && event.toolCallId === second)).toHaveLength(3);
    const recorded = await secret<{ notes: { kind: string; message: string }[] }>(`/api/runs/${run.id}`);
    expect(recorded.body.notes.filter((note) => note.kind === "operator").map((note) => note.message)).toEqual([
      expect.stringContaining('"expire"'),
      expect.stringContaining('"redeliver"'),
      expect.stringContaining('"redeliver"'),
    ]);
    world.close();
  });

  it("abort a running run: it fails with the reason and keeps its events; with nothing running it is 409", async () => {
    const world = await toolWorld([hold], () => [{ toolCalls: [{ name: "hold", args: {} }] }, { toolCalls: [skip] }]);
    expect((await secret(`/api/agents/${world.agent.id}/abort`, { body: {} })).status).toBe(409);
    await world.wake();
    const { toolCallId, runId } = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    const aborted = await secret(`/api/agents/${world.agent.id}/abort`, { body: { reason: "runaway" } });
    expect(aborted).toMatchObject({ status: 200, body: { aborted: true, runId } });
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run).toMatchObject({ status: "failed", error: "Aborted by an operator: runaway", trigger: [{ type: "external" }] });
    // Its pending call stays answerable; the late result reaches the inbox.
    expect((await submitResult(runId, toolCallId, { late: true })).status).toBe(200);
    const runs = await settledRuns(world.agent.id);
    expect(runs[1].trigger).toMatchObject([{ type: "tool_result", result: { late: true } }]);
    world.close();
  });
});
