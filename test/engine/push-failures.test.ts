/**
 * A push that fails shows where people look, not only on the agent stream:
 * a `push_failed` note on the run record (`GET /api/runs/:runId`, while the
 * run goes on and after it ended, once), and a line on the call's card
 * (`pushFailure`) that goes away when a retry gets through.
 */
import { describe, expect, it } from "vitest";
import { redactPart, type ToolCallPart } from "../../src/protocol/message";
import { secret } from "../support/api";
import { waitUntil } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

type Part = { toolCallId: string; runId: string; status: string; pushFailure?: { at: string; attempt: number; error?: string; willRetry: boolean } };
type Note = { kind: string; message: string; toolCallId?: string };
type World = Awaited<ReturnType<typeof toolWorld>>;

async function runRecord(runId: string) {
  return (await secret<{ status: string; notes: Note[] }>(`/api/runs/${runId}`)).body;
}

const pushNotes = (notes: Note[]) => notes.filter((note) => note.kind === "push_failed");

async function cardUpdate(world: World, predicate: (part: Part) => boolean, timeoutMs = 10_000): Promise<Part> {
  const event = await world.spaceStream.waitFor((entry) => entry.type === "space.message.updated" && ((entry.data.parts as Part[] | undefined) ?? []).some(predicate), timeoutMs);
  return (event.data.parts as Part[]).find(predicate) as Part;
}

describe("a failed push, where people look", () => {
  it("a card's push that fails says so on the card and on the running run; the card clears once a retry gets through", async () => {
    const hookId = `push-card-${crypto.randomUUID()}`;
    const ask = {
      name: "ask",
      description: "Ask a person",
      executionType: "space",
      timeout: 20_000,
      inputSchema: { type: "object" },
      execution: { webhook: `http://hooks.test/down/1/${hookId}` },
    };
    const world = await toolWorld([ask], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "ask", args: { question: "ok?" } }] }, { toolCalls: [skip] }]);
    await world.wake();
    const failed = await cardUpdate(world, (part) => part.pushFailure !== undefined);
    expect(failed.pushFailure).toMatchObject({ attempt: 1, error: "HTTP 500", willRetry: true });
    expect(failed.status).toBe("requires_action");

    // On the run record while the run still waits for the answer.
    let notes: Note[] = [];
    await waitUntil(async () => (notes = pushNotes((await runRecord(failed.runId)).notes)).length > 0, 5_000, "the push_failed note");
    expect(notes).toEqual([
      { at: expect.any(String), kind: "push_failed", toolCallId: failed.toolCallId, message: expect.stringContaining("failed on attempt 1: HTTP 500. It is tried again.") },
    ]);

    await world.agentStream.waitFor((event) => event.type === "tool.webhook.delivered" && event.data.toolCallId === failed.toolCallId, 10_000);
    const cleared = await cardUpdate(world, (part) => part.toolCallId === failed.toolCallId && part.pushFailure === undefined);
    expect(cleared.status).toBe("requires_action");

    // The run ends with the note once, not twice (the record replaces what was appended).
    expect((await submitResult(failed.runId, failed.toolCallId, { answer: "yes" })).status).toBe(200);
    await waitUntil(async () => (await runRecord(failed.runId)).status === "completed", 10_000, "the run to complete");
    expect(pushNotes((await runRecord(failed.runId)).notes)).toHaveLength(1);
    world.close();
  });

  it("an async call whose push fails after its run ended: the note is on the finished run's record, once", async () => {
    const hookId = `push-async-${crypto.randomUUID()}`;
    const fetchData = {
      name: "fetchData",
      description: "Fetch",
      executionType: "external",
      isAsync: true,
      visible: false,
      inputSchema: { type: "object" },
      execution: { webhook: `http://hooks.test/down/1/${hookId}` },
    };
    const world = await toolWorld([fetchData], () => [{ toolCalls: [{ name: "fetchData", args: { q: 1 } }, skip] }]);
    await world.wake();
    const pending = await world.agentStream.waitForType("tool.pending");
    const { runId, toolCallId } = pending.data as { runId: string; toolCallId: string };
    await world.agentStream.waitFor((event) => event.type === "tool.webhook.delivered" && event.data.toolCallId === toolCallId, 10_000);
    await waitUntil(
      async () => {
        const record = await runRecord(runId);
        return record.status === "completed" && pushNotes(record.notes).length > 0;
      },
      10_000,
      "the finished run with its note",
    );
    expect(pushNotes((await runRecord(runId)).notes)).toEqual([
      expect.objectContaining({ toolCallId, message: expect.stringContaining("(fetchData) to its webhook failed on attempt 1: HTTP 500") }),
    ]);
    world.close();
  });

  it("a subscription's push of run.completed that fails is noted on that run", async () => {
    const hookId = `push-subscription-${crypto.randomUUID()}`;
    const world = await toolWorld([], () => [{ toolCalls: [skip] }]);
    const subscribed = await secret<{ id: string }>("/api/webhooks", { body: { url: `http://hooks.test/down/1/${hookId}`, events: ["run.completed"], agentId: world.agent.id } });
    expect(subscribed.status).toBe(201);
    await world.wake();
    const failed = await world.agentStream.waitFor((event) => event.type === "webhook.failed" && event.data.subscriptionId === subscribed.body.id, 10_000);
    const finished = await world.agentStream.waitForType("agent.cycle.finished");
    const { runId } = finished.data as { runId: string };
    expect(failed.data.attempt).toBe(1);
    await waitUntil(async () => pushNotes((await runRecord(runId)).notes).length > 0, 5_000, "the push_failed note");
    expect(pushNotes((await runRecord(runId)).notes)).toEqual([
      expect.objectContaining({
        message: expect.stringContaining(`The push of run.completed to webhook subscription ${subscribed.body.id} failed on attempt 1: HTTP 500. It is tried again.`),
      }),
    ]);
    world.close();
  });

  it("a minimal tool's card tells public-key clients that its push failed, not why (the error may name the receiver)", () => {
    const pushFailure = { at: "2026-01-01T00:00:00.000Z", attempt: 2, error: 'The host "10.0.0.7" refused', willRetry: true };
    const part: ToolCallPart = { type: "tool_call", toolCallId: "call_1", toolName: "ask", args: { secret: 1 }, status: "requires_action", displayMode: "minimal", pushFailure };
    expect(redactPart(part)).toEqual({
      type: "tool_call",
      toolCallId: "call_1",
      toolName: "ask",
      status: "requires_action",
      pushFailure: { at: pushFailure.at, attempt: 2, willRetry: true },
    });
    expect(redactPart({ ...part, displayMode: "full" }).pushFailure).toEqual(pushFailure);
  });
});
