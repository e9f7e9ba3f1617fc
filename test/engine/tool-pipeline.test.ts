/**
 * The order of the tool pipeline, seen from outside: what a call's tool
 * received (the upstream records it), its run record, the events, and the
 * statistics route. The gate comes before validation, cards, the run and the
 * statistics; the cache before the queue and the run, the statistics still
 * counting the answer; the output limit before the context budget, the card
 * showing the result as the limit left it; and calls `batch` makes go
 * through the same stages.
 */
import { describe, expect, it } from "vitest";
import handleExample from "../fixtures/design-examples/orchestrator-4.json";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const gateway = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: name,
  executionType: "gateway",
  visible: false,
  inputSchema: { type: "object" },
  execution: { url },
  ...extra,
});
type Stats = { toolName: string; calls: number; failed: number; cacheHits: number; failures: Record<string, number>; bytesOut: number };
type Truncated = { truncated: true; handle: string; note: string; preview: string; bytes: number; lines: number };

async function statsOf(agentId: string): Promise<Map<string, Stats>> {
  const { body } = await secret<{ tools: Stats[] }>(`/api/agents/${agentId}/tool-stats`);
  return new Map(body.tools.map((entry) => [entry.toolName, entry]));
}

describe("the tool pipeline's order", () => {
  it("the gate comes first: a denied call is never validated, never gets a card of its own, never runs and is not counted", async () => {
    const hookId = `denied-${crypto.randomUUID()}`;
    const transfer = {
      ...gateway("transfer", `http://hooks.test/ok/${hookId}`, { visible: true, approval: { required: true, timeout: 20_000 } }),
      inputSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] },
      execution: { url: `http://hooks.test/ok/${hookId}`, method: "POST" },
    };
    // Arguments the schema refuses: validation after the gate never sees them.
    const world = await toolWorld([transfer], (spaceId) => [{ toolCalls: [enter(spaceId), call("transfer", { amount: "lots" })] }, { toolCalls: [skip] }]);
    await world.wake();
    const approval = await world.spaceStream.waitFor((event) => event.type === "space.message" && (event.data.parts as { kind?: string }[] | undefined)?.[0]?.kind === "approval");
    const card = (approval.data.parts as { toolCallId: string; approves: string; runId: string }[])[0];
    expect((await submitResult(card.runId, card.toolCallId, { approved: false, reason: "not today" })).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);

    expect(run.toolCalls.find((entry) => entry.toolName === "transfer")).toMatchObject({
      status: "failed",
      error: 'The call to "transfer" was denied: not today. It did not run.',
    });
    expect(await (await fetch(`http://hooks.test/recorded/${hookId}`)).json()).toEqual([]);
    const { body } = await secret<{ messages: { id: string }[] }>(`/api/spaces/${world.spaceId}/messages?afterSeq=0`);
    const ids = body.messages.map((message) => message.id);
    expect(ids).toContain(`msg_${card.approves.replace(/^call_/, "")}_approval`);
    expect(ids).not.toContain(`msg_${card.approves.replace(/^call_/, "")}`);
    const stats = await statsOf(world.agent.id);
    expect(stats.get("enter_space")?.calls).toBe(1);
    expect(stats.has("transfer")).toBe(false);
    world.close();
  });

  it("the cache comes before the queue and the run: a cached answer does not wait behind a busy queue, and the statistics count it", async () => {
    const id = crypto.randomUUID();
    const lookup = {
      ...gateway("lookup", `http://api.test/count/${id}?a={{a}}`, { queue: "api", cache: { ttlMs: 60_000 } }),
      inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
    };
    const slow = gateway("slow", `http://api.test/slow/${id}/400`, { queue: "api" });
    const world = await providerWorld({ tools: [lookup, slow], queues: { api: { concurrency: 1 } }, limits: { maxConcurrentTools: 3 } }, () => [
      { toolCalls: [call("lookup", { a: 1 })] },
      // `slow` takes the queue's one slot; the same lookup again is answered without it.
      { toolCalls: [call("slow"), call("lookup", { a: 1 }), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const [first, again] = run.toolCalls.filter((entry) => entry.toolName === "lookup");
    expect([(first.result as { n: number }).n, first.cacheHit]).toEqual([1, false]);
    // n is the upstream's count of requests: still 1, so the tool did not run again.
    expect([(again.result as { n: number }).n, again.cacheHit, again.queuedMs]).toEqual([1, true, undefined]);
    expect(world.agentStream.ofType("tool.queued").map((event) => event.data.toolCallId)).not.toContain(again.toolCallId);
    expect(await (await fetch(`http://api.test/spans/${id}`)).json()).toHaveLength(1);
    expect((await statsOf(world.agent.id)).get("lookup")).toMatchObject({ calls: 2, cacheHits: 1 });
    world.close();
  });

  it("the output limit comes before the context budget; the card shows the result as the limit left it", async () => {
    const first = gateway("first", "http://api.test/bigjson/40");
    const inventory = gateway("inventory", "http://api.test/bigjson/3000", { visible: true });
    // A 2,000-byte response limit and a 2,000-byte budget for the step (1,000 tokens × 0.5 × 4 bytes), one call at a time.
    const limits = { toolResponseMaxBytes: 2_000, contextWindowTokens: 1_000, toolOutputContextShare: 0.5, maxConcurrentTools: 1 };
    const world = await providerWorld({ tools: [first, inventory], limits }, (spaceId) => [{ toolCalls: [enter(spaceId), call("first"), call("inventory"), skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const entry = run.toolCalls.find((toolCall) => toolCall.toolName === "inventory");
    const seen = entry?.result as Truncated;
    // Stored whole by the limit, then shortened by the budget: the note says both, in that order.
    expect(seen).toMatchObject({ truncated: true, handle: expect.stringMatching(/^out_/) });
    expect(seen.note).toMatch(/over the 2000-byte limit.*\(Shortened: this step's tool outputs reached the context budget\.\)$/s);
    // The statistics and the run record count the whole output, before any cut.
    expect(entry?.bytesOut).toBeGreaterThan(50_000);
    expect(entry?.outputHandle).toBe(seen.handle);
    const done = await world.spaceStream.waitFor((event) => event.type === "tool.done" && event.data.toolCallId === entry?.toolCallId);
    const shown = done.data.result as Truncated;
    expect(shown).toMatchObject({ truncated: true, handle: seen.handle });
    expect(shown.note).not.toContain("Shortened");
    expect(shown.preview.length).toBeGreaterThan(seen.preview.length);
    // The orchestrator's handle message beside the gateway's fields, and its flag where the budget shortened the answer.
    const handleMessage = { handle: seen.handle, reason: "size_limit_exceeded", bytes: seen.bytes, lines: seen.lines, tokens: Math.ceil(seen.bytes / 4) };
    expect(seen).toMatchObject({ reason: "size_limit_exceeded", tokens: handleMessage.tokens, tool_output: handleMessage, toolBudgetExceeded: true });
    expect(shown).toMatchObject({ reason: "size_limit_exceeded", tool_output: handleMessage });
    expect(shown).not.toHaveProperty("toolBudgetExceeded");
    expect(Object.keys(handleMessage).sort()).toEqual(Object.keys(handleExample.tool_output).sort());
    world.close();
  });

  it("a call batch makes goes through the same stages: its arguments are validated and counted, its large result put behind a handle", async () => {
    const inventory = gateway("inventory", "http://api.test/bigjson/3000");
    const world = await providerWorld({ builtins: ["spaces", "data", "reports"], tools: [inventory], limits: { toolResponseMaxBytes: 2_000 } }, () => [
      { toolCalls: [call("batch", { calls: [{ tool: "hash", args: { text: 42 } }, { tool: "inventory" }, { tool: "hash", args: { text: "abc" } }] })] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const batch = run.toolCalls.find((entry) => entry.toolName === "batch");
    // Each inner call is reported on the agent stream (the batch's own result is itself over the limit here).
    const inner = [...world.agentStream.ofType("tool.completed"), ...world.agentStream.ofType("tool.failed")]
      .filter((event) => event.data.batchToolCallId === batch?.toolCallId)
      .sort((a, b) => String(a.data.toolCallId).localeCompare(String(b.data.toolCallId)));
    expect(inner.map((event) => [event.data.toolName, event.type])).toEqual([
      ["hash", "tool.failed"],
      ["inventory", "tool.completed"],
      ["hash", "tool.completed"],
    ]);
    expect(inner[0].data.error).toContain('Invalid arguments for tool "hash"');
    expect(inner[1].data.result).toMatchObject({ truncated: true, handle: expect.stringMatching(/^out_/) });
    const stats = await statsOf(world.agent.id);
    expect(stats.get("hash")).toMatchObject({ calls: 2, failed: 1, failures: { validation: 1 } });
    expect(stats.get("inventory")).toMatchObject({ calls: 1, failed: 0 });
    expect(stats.get("inventory")?.bytesOut).toBeGreaterThan(50_000);
    world.close();
  });
});
