import { describe, expect, it } from "vitest";
import { debounceUntil, interrupts, presentEvents, supersededEvents } from "../../src/agents/double-texting";
import type { QueuedEvent } from "../../src/agents/inbox-event";
import { createHuman, createSpace, postMessage, secret } from "../support/api";
import { consciousnessOf } from "../support/agent-storage-view";
import { createAgent, settledRuns, waitForRuns } from "../support/agents";
import { openSse } from "../support/stream-client";

const message = (id: string, spaceId: string, entityId: string, text: string, at = 0): QueuedEvent => ({
  id,
  receivedAt: new Date(at).toISOString(),
  attempts: 0,
  event: { type: "space_message", spaceId, messageId: id, seq: 1, entityId, text },
});

describe("double texting, decided", () => {
  const events = [
    message("a", "s1", "p", "one", 0),
    message("b", "s1", "p", "two", 100),
    message("c", "s2", "q", "other", 200),
    { id: "x", receivedAt: new Date(300).toISOString(), attempts: 0, event: { type: "external" as const, data: 1 } },
  ];

  it("latest keeps the newest message of each space, and every other event", () => {
    expect(supersededEvents("latest", events).map((queued) => queued.id)).toEqual(["a"]);
    expect(supersededEvents("queue", events)).toEqual([]);
  });

  it("merge joins consecutive messages of one speaker in one space", () => {
    const merged = presentEvents("merge", events);
    expect(merged.map((queued) => queued.id)).toEqual(["b", "c", "x"]);
    expect(merged[0].event).toMatchObject({ text: "one\ntwo" });
    expect(presentEvents("queue", events)).toBe(events);
  });

  it("debounce waits for quiet, but not past ten windows after the first event", () => {
    expect(debounceUntil({ debounceMs: 1_000 }, events, 500)).toBe(1_300);
    expect(debounceUntil({ debounceMs: 1_000 }, events, 2_000)).toBeUndefined();
    expect(debounceUntil({ debounceMs: 50 }, events, 400)).toBeUndefined();
    expect(debounceUntil({ debounceMs: 10 }, [...events, message("late", "s1", "p", "late", 5_000)], 120)).toBeUndefined();
    expect(debounceUntil("queue", events, 0)).toBeUndefined();
  });

  it("interrupt is about new messages only", () => {
    expect(interrupts("interrupt", events)).toBe(true);
    expect(interrupts("interrupt", [events[3]])).toBe(false);
    expect(interrupts("queue", events)).toBe(false);
  });
});

/** An agent busy in a sync external call until the test answers it; then it skips. */
async function busyAgent(doubleTexting: unknown, turns: unknown[]) {
  const person = await createHuman("Texter");
  const spaceId = await createSpace([person]);
  const hold = { name: "hold", description: "Busy", executionType: "external", visible: false, timeout: 20_000, inputSchema: { type: "object" } };
  const agent = await createAgent({ agent: { name: "Busy" }, model: { provider: "scripted", turns }, tools: [hold], loop: { doubleTexting } });
  await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
  const stream = await openSse(`/api/agents/${agent.id}/stream`, { "x-secret-key": (await import("cloudflare:workers")).env.GATEWAY_SECRET_KEY });
  const release = async () => {
    const { runId, toolCallId } = (await stream.collector.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    await secret(`/api/runs/${runId}/tool-results`, { body: { callId: toolCallId, result: { done: true } } });
  };
  return { person, spaceId, agent, stream, release };
}

const holdThenSkip = [
  { toolCalls: [{ name: "hold", args: {} }] },
  { toolCalls: [{ name: "skip", args: {} }] },
  { toolCalls: [{ name: "skip", args: {} }] },
  { toolCalls: [{ name: "skip", args: {} }] },
];

describe("double texting, end to end", () => {
  it("interrupt: a message during a cycle ends it at the next step; the next cycle starts over with everything", async () => {
    const world = await busyAgent("interrupt", holdThenSkip);
    await postMessage(world.spaceId, world.person, "first");
    await world.stream.collector.waitForType("tool.pending");
    await postMessage(world.spaceId, world.person, "second");
    await world.release();
    const [interrupted, next] = await waitForRuns(world.agent.id, 2);
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.notes).toEqual([expect.objectContaining({ kind: "interrupted" })]);
    expect(next.status).toBe("completed");
    expect(next.trigger.map((event) => event.text)).toEqual(["first", "second"]);
    world.stream.close();
  });

  it("latest: of the messages that arrived meanwhile, the next cycle takes only the newest", async () => {
    const world = await busyAgent("latest", holdThenSkip);
    await postMessage(world.spaceId, world.person, "first");
    await world.stream.collector.waitForType("tool.pending");
    await postMessage(world.spaceId, world.person, "second");
    await postMessage(world.spaceId, world.person, "third");
    await world.release();
    const runs = await settledRuns(world.agent.id);
    expect(runs).toHaveLength(2);
    expect(runs[1].trigger.map((event) => event.text)).toEqual(["third"]);
    expect(runs[1].notes).toEqual([expect.objectContaining({ kind: "superseded" })]);
    world.stream.close();
  });

  it("merge: the next cycle shows one speaker's messages as one", async () => {
    const world = await busyAgent("merge", holdThenSkip);
    await postMessage(world.spaceId, world.person, "first");
    await world.stream.collector.waitForType("tool.pending");
    await postMessage(world.spaceId, world.person, "second");
    await postMessage(world.spaceId, world.person, "third");
    await world.release();
    const runs = await settledRuns(world.agent.id);
    expect(runs[1].trigger.map((event) => event.text)).toEqual(["second", "third"]);
    const consciousness = JSON.stringify(await consciousnessOf(world.agent.id));
    expect(consciousness).toContain("second\\\\nthird");
    world.stream.close();
  });

  it("debounce: a burst of messages starts one cycle, after the burst goes quiet", async () => {
    const person = await createHuman("Burst");
    const spaceId = await createSpace([person]);
    const agent = await createAgent({
      agent: { name: "Patient" },
      model: { provider: "scripted", turns: [{ toolCalls: [{ name: "skip", args: {} }] }] },
      loop: { doubleTexting: { debounceMs: 400 } },
    });
    await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: agent.entityId } });
    const sent = [];
    for (const text of ["a", "b", "c"]) sent.push(await postMessage(spaceId, person, text));
    const runs = await settledRuns(agent.id);
    expect(runs).toHaveLength(1);
    expect(runs[0].trigger.map((event) => event.text)).toEqual(["a", "b", "c"]);
    const run = await secret<{ createdAt: string }>(`/api/runs/${runs[0].id}`);
    const lastArrival = Math.max(...runs[0].trigger.map((event) => Date.parse(event.receivedAt as string)));
    expect(Date.parse(run.body.createdAt) - lastArrival).toBeGreaterThanOrEqual(390);
  });
});
