/**
 * A queue wait ended by a cancelled cycle (an operator's abort): the call
 * waiting for a slot leaves the line and never runs, the call holding the slot
 * gives it back, and the queue serves the agent's next cycle at once. Were the
 * wait left in line, the slot would pass to it (the stale call would run, and
 * the upstream's count would be 2 in the next cycle) or never come back.
 */
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { settledRuns, waitForRuns } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

const gateway = (name: string, url: string) => ({
  name,
  description: name,
  executionType: "gateway",
  visible: false,
  inputSchema: { type: "object" },
  execution: { url },
  queue: "api",
});

describe("a queue wait ended by a cancelled cycle", () => {
  it("the waiting call never runs, and the queue is free for the next cycle", async () => {
    const id = crypto.randomUUID();
    const tools = [gateway("hang", `http://api.test/hang-always/${id}`), gateway("count", `http://api.test/count/${id}`)];
    const world = await providerWorld({ tools, queues: { api: { concurrency: 1 } }, limits: { maxConcurrentTools: 2, toolTimeout: 60_000 } }, () => [
      // `hang` takes the queue's one slot and never answers; `count` waits behind it.
      {
        toolCalls: [
          { name: "hang", args: {} },
          { name: "count", args: {} },
        ],
      },
      // The next cycle: `count` gets the slot at once.
      { toolCalls: [{ name: "count", args: {} }, skip] },
    ]);
    await world.wake();
    const queued = await world.agentStream.waitFor((event) => event.type === "tool.queued" && event.data.toolName === "count");
    const aborted = await secret(`/api/agents/${world.agent.id}/abort`, { body: { reason: "stuck upstream" } });
    expect(aborted.status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run).toMatchObject({ status: "failed", error: "Aborted by an operator: stuck upstream" });
    // The aborted cycle ends at once: the waiting call leaves the line without ever starting.
    const afterQueued = world.agentStream.events.filter((event) => event.data.toolCallId === queued.data.toolCallId).map((event) => event.type);
    expect(afterQueued).not.toContain("tool.started");
    expect(afterQueued).not.toContain("tool.completed");

    await world.wake();
    const runs = await settledRuns(world.agent.id);
    const next = runs.find((entry) => entry.id !== run.id);
    expect(next?.status).toBe("completed");
    const counted = next?.toolCalls.find((entry) => entry.toolName === "count");
    // The first request the upstream saw for this id, and no wait for a slot.
    expect(counted).toMatchObject({ status: "completed", result: { n: 1 } });
    expect(counted?.queuedMs ?? 0).toBeLessThan(1_000);
    world.close();
  });
});
