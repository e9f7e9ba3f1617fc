/**
 * A result that comes after its run moved on (an asynchronous call's, or a
 * call whose wait timed out) wakes the agent in a new run. That run is a
 * trace of its own whose root span links to the span of the call that
 * waited; the call's trace context is kept with the pending call, so an
 * agent object restarted between the call and its answer keeps the link.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { waitForRuns } from "../../support/agents";
import { submitResult, toolWorld } from "../../support/tool-world";
import { callSpan, rootSpan } from "./exported-spans";

const job = { name: "slow_job", description: "A job someone finishes later", executionType: "external", visible: false, inputSchema: { type: "object", properties: {} } };

/** The run woken by the call's late result: its root span links to the call's span, in a trace of its own. */
async function expectLinkedToCall(agentId: string, firstRunId: string, toolCallId: string) {
  const call = await callSpan("slow_job", toolCallId);
  expect(call.traceId).toBe((await rootSpan(firstRunId)).traceId);
  const [, woken] = await waitForRuns(agentId, 2);
  expect(woken.trigger).toEqual([expect.objectContaining({ type: "tool_result", toolCallId })]);
  const root = await rootSpan(woken.id);
  expect(root.links).toEqual([{ traceId: call.traceId, spanId: call.spanId, sampled: true, attributes: { "gen_ai.tool.call.id": toolCallId } }]);
  expect(root.parentSpanId).toBeUndefined();
  expect(root.traceId).not.toBe(call.traceId);
}

describe("a late result's run, traced", () => {
  it("an asynchronous call answered after the agent object restarted: the run it wakes links to the call's span", async () => {
    const world = await toolWorld([{ ...job, isAsync: true }], () => [{ toolCalls: [{ name: "slow_job", args: {} }] }, { text: "queued" }, { text: "got it" }]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    const toolCallId = String((await world.agentStream.waitForType("tool.pending")).data.toolCallId);
    // Its spans are out before the object goes: the restart comes between the call and its answer.
    await callSpan("slow_job", toolCallId);
    await abortAllDurableObjects();
    expect((await submitResult(first.id, toolCallId, { done: true })).status).toBe(200);
    await expectLinkedToCall(world.agent.id, first.id, toolCallId);
  });

  it("a call whose wait timed out, answered after its run ended: the run it wakes links to the call's span", async () => {
    const world = await toolWorld([{ ...job, timeout: 100 }], () => [{ toolCalls: [{ name: "slow_job", args: {} }] }, { text: "timed out" }, { text: "got it" }]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    const toolCallId = String((await world.agentStream.waitForType("tool.pending")).data.toolCallId);
    expect((await submitResult(first.id, toolCallId, { done: true })).status).toBe(200);
    await expectLinkedToCall(world.agent.id, first.id, toolCallId);
  });
});
