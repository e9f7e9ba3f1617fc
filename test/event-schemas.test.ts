/**
 * The stream events in the OpenAPI document (`SpaceEvent`, `AgentEvent`) are
 * what SDKs are typed from: every event a real cycle emits must parse with them.
 */
import { describe, expect, it } from "vitest";
import { AgentEvent, SpaceEvent } from "../src/api/event-schemas";
import { enter, skip, submitResult, toolWorld } from "./support/tool-world";

const tools = [
  {
    name: "ask",
    description: "Ask the person",
    executionType: "space",
    inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
    resultSchema: { type: "object", properties: { answer: { type: "string" } } },
  },
  {
    name: "fail_visibly",
    description: "A gateway call that fails",
    executionType: "gateway",
    execution: { url: "https://api.test/status/500", method: "GET" },
    inputSchema: { type: "object" },
  },
];

describe("stream events match the documented schemas", () => {
  it("every space and agent event of a cycle with a message, a space tool and a failing tool parses", async () => {
    const world = await toolWorld(tools, (spaceId) => [
      {
        toolCalls: [enter(spaceId), { name: "send_message", args: { text: "Let me ask you something." } }, { name: "ask", args: { question: "Tea?" } }],
      },
      { toolCalls: [{ name: "fail_visibly", args: {} }] },
      { toolCalls: [skip] },
    ]);
    // The world's streams close themselves when the test ends, pass or fail.
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const { runId, toolCallId } = pending.data as { runId: string; toolCallId: string };
    expect((await submitResult(runId, toolCallId, { answer: "yes" })).status).toBe(200);
    await world.agentStream.waitForType("agent.cycle.finished", 10_000);
    await world.spaceStream.waitForType("agent.cycle.finished", 10_000);
    const spaceTypes = new Set(world.spaceStream.events.map((event) => event.type));
    for (const type of ["space.message", "space.message.streaming", "space.message.updated", "tool.started", "tool.streaming", "tool.done", "tool.error", "agent.cycle.started"]) {
      expect(spaceTypes, type).toContain(type);
    }
    for (const event of world.spaceStream.events) {
      const parsed = SpaceEvent.safeParse(event);
      expect(parsed.success, `${event.type}: ${parsed.error?.message}`).toBe(true);
    }
    const agentTypes = new Set(world.agentStream.events.map((event) => event.type));
    for (const type of ["agent.inbox.received", "tool.requested", "tool.input.delta", "tool.pending", "tool.completed", "tool.failed", "agent.step.finished"]) {
      expect(agentTypes, type).toContain(type);
    }
    for (const event of world.agentStream.events) {
      const parsed = AgentEvent.safeParse(event);
      expect(parsed.success, `${event.type}: ${parsed.error?.message}`).toBe(true);
    }
  });
});
