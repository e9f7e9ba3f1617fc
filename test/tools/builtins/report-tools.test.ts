import { describe, expect, it } from "vitest";
import { secret } from "../../support/api";
import { createAgent, scriptedConfig, settledRuns, waitForRuns } from "../../support/agents";
import { catalogueAgent } from "../../support/catalogue";
import { openSse } from "../../support/stream-client";

type SpaceMessage = {
  id: string;
  entityId: string;
  role: string;
  text?: string;
  status: string;
  parts?: { type: string; toolCallId: string; toolName?: string; args?: Record<string, unknown>; status?: string; customUI?: string }[];
};

async function messagesOf(spaceId: string): Promise<SpaceMessage[]> {
  return (await secret<{ messages: SpaceMessage[] }>(`/api/spaces/${spaceId}/messages?afterSeq=0`)).body.messages;
}

describe("final_report", () => {
  it("keeps the cycle's answer on the run record, posts it to the active space, and ends the cycle", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "reports"] }, (spaceId) => [
      { toolCalls: [{ name: "enter_space", args: { spaceId } }] },
      { toolCalls: [{ name: "final_report", args: { status: "success", content: "All **three** checks passed.", metadata: { checks: 3 } } }] },
      { text: "a later cycle" },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.steps).toHaveLength(2);
    const report = run.toolCalls.find((call) => call.toolName === "final_report");
    expect(report).toMatchObject({ status: "completed", result: { recorded: true, posted: true, spaceId: world.spaceId } });
    expect(run.notes).toEqual([
      expect.objectContaining({
        kind: "final_report",
        toolCallId: report?.toolCallId,
        message: "success: All **three** checks passed.",
        report: { status: "success", format: "markdown", content: "All **three** checks passed.", metadata: { checks: 3 } },
      }),
    ]);
    const posted = (await messagesOf(world.spaceId)).filter((message) => message.entityId === world.agent.entityId);
    expect(posted.map((message) => message.text)).toEqual(["All **three** checks passed."]);
    const fromRoute = await secret<{ notes: unknown[] }>(`/api/runs/${run.id}`);
    expect(fromRoute.body.notes).toEqual(run.notes);
  });

  it("a JSON report, outside any space, is kept on the record only; a report missing its content is an error the model can fix", async () => {
    const world = await catalogueAgent({ builtins: ["reports"] }, () => [
      { toolCalls: [{ name: "final_report", args: { status: "partial", format: "json" } }] },
      { toolCalls: [{ name: "final_report", args: { status: "partial", format: "json", contentJson: { done: 2, left: 1 } } }] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.map((call) => [call.status, call.result])).toEqual([
      ["failed", { error: "The json format needs contentJson" }],
      ["completed", { recorded: true, posted: false }],
    ]);
    expect(run.notes).toMatchObject([{ kind: "final_report", report: { status: "partial", format: "json", contentJson: { done: 2, left: 1 } } }]);
    expect(await messagesOf(world.spaceId)).toEqual([]);
  });

  it("takes the orchestrator's field names (content_json; ready_for_final_report, need_to_run_more_tools) beside today's, kept under today's; both names at once is refused", async () => {
    const world = await catalogueAgent({ builtins: ["reports"] }, () => [
      {
        toolCalls: [
          { name: "task_status", args: { status: "in-progress", now: "summing", ready_for_final_report: true, need_to_run_more_tools: false } },
          { name: "task_status", args: { status: "in-progress", readyForFinalReport: true, ready_for_final_report: true } },
          { name: "final_report", args: { status: "success", format: "json", contentJson: 1, content_json: 2 } },
        ],
      },
      { toolCalls: [{ name: "final_report", args: { status: "success", format: "json", content_json: { total: 3 } } }] },
    ]);
    const events = await openSse(`/api/agents/${world.agent.id}/stream`, { "x-secret-key": (await import("cloudflare:workers")).env.GATEWAY_SECRET_KEY });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.map((call) => [call.toolName, call.status, call.result])).toEqual([
      ["task_status", "completed", { status: "in-progress", shown: false }],
      ["task_status", "failed", { error: "Give readyForFinalReport or ready_for_final_report, not both" }],
      ["final_report", "failed", { error: "Give contentJson or content_json, not both" }],
      ["final_report", "completed", { recorded: true, posted: false }],
    ]);
    expect(run.notes).toMatchObject([{ kind: "final_report", report: { status: "success", format: "json", contentJson: { total: 3 } } }]);
    const status = await events.collector.waitFor((event) => event.type === "agent.task.status");
    expect(status.data).toEqual({ runId: run.id, status: "in-progress", now: "summing", readyForFinalReport: true, needToRunMoreTools: false });
    events.close();
  });
});

describe("task_status", () => {
  it("shows one live card per cycle in the active space, updated in place", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "reports"] }, (spaceId) => [
      {
        toolCalls: [
          { name: "enter_space", args: { spaceId } },
          { name: "task_status", args: { status: "starting", now: "reading the brief" } },
        ],
      },
      { toolCalls: [{ name: "task_status", args: { status: "in-progress", done: "brief read", pending: "tests", now: "writing tests" } }] },
      {
        toolCalls: [
          { name: "task_status", args: { status: "completed", done: "everything" } },
          { name: "skip", args: {} },
        ],
      },
    ]);
    const stream = await openSse(`/api/spaces/${world.spaceId}/stream`, { "x-secret-key": (await import("cloudflare:workers")).env.GATEWAY_SECRET_KEY });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.filter((call) => call.toolName === "task_status").every((call) => call.status === "completed")).toBe(true);
    const cards = (await messagesOf(world.spaceId)).filter((message) => message.role === "tool");
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({
      status: "complete",
      parts: [{ type: "tool_call", toolName: "task_status", customUI: "TaskStatus", status: "complete", args: { status: "completed", done: "everything" } }],
    });
    await stream.collector.waitFor((event) => event.type === "space.message.updated" && (event.data.parts as { status: string }[])[0].status === "complete");
    const updates = stream.collector.ofType("space.message.updated").map((event) => (event.data.parts as { args: { status: string } }[])[0].args.status);
    expect(updates).toEqual(["in-progress", "completed"]);
    stream.close();
  });
});

describe("batch", () => {
  it("runs several calls in one, each with its own result in order, the failing ones as errors", async () => {
    const gateway = {
      name: "lookup",
      description: "Look up",
      executionType: "gateway",
      visible: false,
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      execution: { url: "http://api.test/echo/{{q}}", method: "POST" },
    };
    const external = { name: "askHuman", description: "Ask", executionType: "external", inputSchema: { type: "object" } };
    const world = await catalogueAgent({ builtins: ["spaces", "knowledge", "data", "time", "reports"], tools: [gateway, external] }, (spaceId) => [
      {
        toolCalls: [
          {
            name: "batch",
            args: {
              calls: [
                { tool: "enter_space", args: { spaceId } },
                { tool: "hash", args: { text: "abc" } },
                { tool: "lookup", args: { q: "one" } },
                { tool: "set_memories", args: { memories: [{ key: "batched", value: "yes" }] } },
                { tool: "hash", args: { text: 42 } },
                { tool: "sleep", args: { seconds: 5 } },
                { tool: "askHuman", args: {} },
                { tool: "batch", args: { calls: [] } },
                { tool: "nope", args: {} },
                { tool: "send_message", args: { text: "sent from a batch" } },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: "skip", args: {} }] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const batch = run.toolCalls.find((call) => call.toolName === "batch");
    expect(batch?.status).toBe("completed");
    const { results } = batch?.result as { results: { tool: string; ok: boolean; result?: Record<string, unknown>; error?: string }[] };
    expect(results.map((entry) => [entry.tool, entry.ok])).toEqual([
      ["enter_space", true],
      ["hash", true],
      ["lookup", true],
      ["set_memories", true],
      ["hash", false],
      ["sleep", false],
      ["askHuman", false],
      ["batch", false],
      ["nope", false],
      ["send_message", true],
    ]);
    expect(results[1].result).toMatchObject({ hash: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" });
    // The gateway call inside the batch carries an id derived from the batch call's.
    expect((results[2].result as { headers: Record<string, string> }).headers["idempotency-key"]).toBe(`${batch?.toolCallId}_2`);
    expect(results[4].error).toContain('Invalid arguments for tool "hash"');
    expect(results[5].error).toContain("sleep ends the cycle");
    expect(results[6].error).toContain("waits for a person or a service");
    expect(results[7].error).toContain("batch cannot contain batch");
    expect(results[8].error).toContain('no tool named "nope"');
    const memories = await secret<{ memories: { key: string; value: string }[] }>(`/api/agents/${world.agent.id}/memories`);
    expect(memories.body.memories).toMatchObject([{ key: "batched", value: "yes" }]);
    const replies = (await messagesOf(world.spaceId)).filter((message) => message.entityId === world.agent.entityId);
    expect(replies).toMatchObject([{ id: `msg_${batch?.toolCallId.replace(/^call_/, "")}_9`, text: "sent from a batch" }]);
  });

  it("runs at most maxConcurrentTools calls at a time", async () => {
    const slow = (index: number) => ({ tool: "http_request", args: { url: `http://api.test/hang`, timeoutMs: 300 + index } });
    const world = await catalogueAgent({ builtins: ["http", "reports"], limits: { maxConcurrentTools: 2 } }, () => [
      { toolCalls: [{ name: "batch", args: { calls: [slow(0), slow(1), slow(2), slow(3)] } }] },
      { text: "done" },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    const batch = run.toolCalls[0];
    expect((batch.result as { results: { ok: boolean }[] }).results.every((entry) => !entry.ok)).toBe(true);
    // Two at a time: four 300 ms timeouts take two rounds.
    expect(batch.latencyMs).toBeGreaterThanOrEqual(600);
  });

  it("a message sent from a batch with mentions wakes the mentioned agent, exactly once", async () => {
    const listener = await createAgent(scriptedConfig([{ toolCalls: [{ name: "skip", args: {} }] }]));
    const world = await catalogueAgent({ builtins: ["spaces", "reports"] }, (spaceId) => [
      {
        toolCalls: [
          {
            name: "batch",
            args: {
              calls: [
                { tool: "enter_space", args: { spaceId } },
                { tool: "send_message", args: { text: "ping", mentions: [listener.entityId] } },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: "skip", args: {} }] },
    ]);
    await secret(`/api/spaces/${world.spaceId}/members`, { body: { entityId: listener.entityId } });
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    const [woken] = await waitForRuns(listener.id, 1);
    expect(woken.trigger).toMatchObject([{ type: "space_message", text: "ping" }]);
    expect(await settledRuns(listener.id)).toHaveLength(1);
    expect(await settledRuns(world.agent.id)).toHaveLength(1);
  });
});
