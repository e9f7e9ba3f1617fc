/** A gateway tool whose answer streams (NDJSON or SSE): each record is `tool.progress` (and `tool.streaming` on a visible card); the result holds them all. */
import { describe, expect, it } from "vitest";
import { waitForRuns } from "../../support/agents";
import { providerWorld } from "../../support/provider-world";
import { enter, skip } from "../../support/tool-world";

const streamed = (name: string, url: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: "Streams its answer",
  executionType: "gateway",
  visible: true,
  inputSchema: { type: "object" },
  execution: { url, method: "GET" },
  ...extra,
});

describe("streamed gateway answers", () => {
  it("NDJSON lines are progress as they come, and the result is every record", async () => {
    const world = await providerWorld({ tools: [streamed("lines", "http://api.test/stream/ndjson")] }, (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "lines", args: {} }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "lines")).toMatchObject({
      status: "completed",
      result: { format: "ndjson", items: [{ step: 1 }, { step: 2 }, { step: 3 }] },
    });
    const progress = world.agentStream.ofType("tool.progress").map((event) => event.data);
    expect(progress).toMatchObject([
      { toolName: "lines", progress: 1, message: '{"step":1}' },
      { toolName: "lines", progress: 2, message: '{"step":2}' },
      { toolName: "lines", progress: 3, message: '{"step":3}' },
    ]);
    const onCard = world.spaceStream.ofType("tool.streaming").filter((event) => event.data.progress !== undefined);
    expect(onCard.map((event) => (event.data.progress as { progress: number }).progress)).toEqual([1, 2, 3]);
    world.close();
  });

  it("SSE events are progress too: comments and [DONE] are skipped, text that is not JSON is kept as text", async () => {
    const world = await providerWorld({ tools: [streamed("events", "http://api.test/stream/sse", { visible: false })] }, () => [
      { toolCalls: [{ name: "events", args: {} }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "events")?.result).toEqual({ format: "sse", items: [{ step: 1 }, { step: 2 }, "plain text", { step: 3 }] });
    expect(world.agentStream.ofType("tool.progress").map((event) => event.data.progress)).toEqual([1, 2, 3, 4]);
    world.close();
  });

  it("a stream past the response limit is refused like any answer", async () => {
    const world = await providerWorld(
      { tools: [streamed("lines", "http://api.test/stream/ndjson", { visible: false, execution: { url: "http://api.test/stream/ndjson", method: "GET", maxResponseBytes: 16 } })] },
      () => [{ toolCalls: [{ name: "lines", args: {} }] }, { toolCalls: [skip] }],
    );
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((entry) => entry.toolName === "lines")).toMatchObject({ status: "failed", error: "Tool response exceeded 16 bytes" });
    world.close();
  });
});
