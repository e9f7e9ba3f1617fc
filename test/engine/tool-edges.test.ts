import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

const external = (overrides: Record<string, unknown> = {}) => ({
  name: "ask",
  description: "Ask someone",
  executionType: "external",
  visible: false,
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
  ...overrides,
});

describe("tool edges", () => {
  it("a call that expires while the cycle waits ends the wait with the expiry error, and a later result gets 410", async () => {
    const world = await toolWorld([external({ timeout: 10_000, execution: { expiresIn: 400 } })], () => [{ toolCalls: [{ name: "ask", args: { q: "?" } }, skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 5_000);
    const call = run.toolCalls[0];
    expect((call.result as { error: string }).error).toMatch(/expired/);
    expect(call.latencyMs).toBeLessThan(5_000);
    expect((await submitResult(run.id, call.toolCallId, { late: true })).status).toBe(410);
    world.close();
  });

  it("on the space stream, tool.done for a waiting call comes before the cycle that used it finishes", async () => {
    const world = await toolWorld([external({ visible: true, timeout: 10_000 })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: { q: "?" } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    expect((await submitResult(runId, toolCallId, { answer: 42 })).status).toBe(200);
    const finished = await world.spaceStream.waitForType("agent.cycle.finished");
    const done = world.spaceStream.ofType("tool.done")[0];
    expect(done?.seq).toBeLessThan(finished.seq);
    world.close();
  });

  it("a posted error marks the card as an error, emits tool.error, and reaches the agent as a failure", async () => {
    const world = await toolWorld([external({ visible: true, isAsync: true })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: { q: "?" } }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls.find((call) => call.toolName === "ask")?.toolCallId ?? "";
    const both = await secret<{ error: { code: string } }>(`/api/runs/${run.id}/tool-results`, { body: { callId, result: 1, error: "no" } });
    expect(both.status).toBe(400);
    const posted = await secret(`/api/runs/${run.id}/tool-results`, { body: { callId, error: "the service is down" } });
    expect(posted).toMatchObject({ status: 200, body: { success: true } });
    const failed = await world.spaceStream.waitForType("tool.error");
    expect(failed.data).toMatchObject({ toolCallId: callId, toolName: "ask", error: "the service is down" });
    const updated = await world.spaceStream.waitForType("space.message.updated");
    expect(updated.data).toMatchObject({ status: "error" });
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId: callId, result: null, error: "the service is down" }]);
    world.close();
  });

  it("a result that happens to have an error or status field is a result, never misread as a failure or a pending call", async () => {
    const world = await toolWorld([external({ visible: true, isAsync: true })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "ask", args: { q: "?" } }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls.find((call) => call.toolName === "ask")?.toolCallId ?? "";
    const lookalike = { error: "not found is a valid answer here", status: "pending" };
    expect((await submitResult(run.id, callId, lookalike)).status).toBe(200);
    const done = await world.spaceStream.waitForType("tool.done");
    expect(done.data).toMatchObject({ toolCallId: callId, result: lookalike });
    expect((await world.spaceStream.waitForType("space.message.updated")).data).toMatchObject({ status: "complete" });
    expect(world.spaceStream.ofType("tool.error")).toEqual([]);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId: callId, result: lookalike }]);
    expect(second.trigger[0]).not.toHaveProperty("error");
    world.close();
  });

  it("gateway template mistakes are refused when the agent is saved, with their paths", async () => {
    const gateway = (execution: Record<string, unknown>) => ({ name: "g", description: "g", executionType: "gateway", inputSchema: { type: "object" }, execution });
    const config = {
      agent: { name: "bad" },
      model: { provider: "scripted", turns: [] },
      tools: [
        gateway({ url: "http://{{host}}/x", method: "GET" }),
        { ...gateway({ url: "http://api.test/x", method: "GET", body: { a: 1 } }), name: "g2" },
        { ...gateway({ url: "http://api.test/x", headers: { authorization: "Bearer ${env.JWT_SECRET}" } }), name: "g3" },
      ],
    };
    const refused = await secret<{ error: { code: string; details: { path: string }[] } }>("/api/agents", { body: { config } });
    expect(refused.status).toBe(400);
    const paths = refused.body.error.details.map((detail) => detail.path);
    expect(paths).toEqual(expect.arrayContaining(["config.tools.0.execution.url", "config.tools.1.execution.body", "config.tools.2.execution.headers.authorization"]));
    const unknownSecret = await secret<{ error: { details: { path: string; message: string }[] } }>("/api/agents", {
      body: { config: { ...config, tools: [{ ...gateway({ url: "http://api.test/x", headers: { "x-key": "${env.NOT_SET_ANYWHERE}" } }) }] } },
    });
    expect(unknownSecret.status).toBe(400);
    expect(unknownSecret.body.error.details[0]).toMatchObject({ path: "config.tools.0.execution.headers.x-key" });
    expect(unknownSecret.body.error.details[0].message).toContain("NOT_SET_ANYWHERE");
  });
});
