import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callJson, createHuman, memberHeaders, secret } from "../support/api";
import { settledRuns, waitForRuns } from "../support/agents";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

const external = (overrides: Record<string, unknown> = {}) => ({
  name: "fetchData",
  description: "Ask the external service",
  executionType: "external",
  visible: false,
  inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  ...overrides,
});

async function pendingStatus(agentId: string, callId: string): Promise<string | undefined> {
  const { body } = await secret<{ pendingToolCalls: { toolCallId: string; status: string }[] }>(`/api/agents/${agentId}/pending-tool-calls`);
  return body.pendingToolCalls.find((call) => call.toolCallId === callId)?.status;
}

describe("waiting calls", () => {
  it("a result posted while the cycle waits continues it at once, with no inbox event", async () => {
    const world = await toolWorld([external({ timeout: 20_000 })], () => [{ toolCalls: [{ name: "fetchData", args: { query: "projects" } }, skip] }]);
    await world.wake();
    const announced = await world.agentStream.waitForType("tool.pending");
    expect(announced.data).toMatchObject({ toolName: "fetchData", args: { query: "projects" }, status: "waiting", executionType: "external" });
    const { runId, toolCallId } = announced.data as { runId: string; toolCallId: string };
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("waiting");
    const posted = Date.now();
    const answer = await submitResult(runId, toolCallId, { projects: ["alpha", "beta"] });
    expect(answer).toEqual({ status: 200, body: { success: true, agentEntityId: world.agent.entityId } });
    const finished = await world.agentStream.waitForType("agent.cycle.finished");
    expect(Date.parse(finished.at) - posted).toBeLessThan(2_000);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ status: "completed", result: { projects: ["alpha", "beta"] } });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("resolved");
    expect(await settledRuns(world.agent.id)).toHaveLength(1);
    world.close();
  });

  it("a timeout gives the model a 'timed out' error, and a late result reaches the inbox and starts a cycle", async () => {
    const world = await toolWorld([external({ timeout: 300 })], () => [{ toolCalls: [{ name: "fetchData", args: { query: "slow" } }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    const [first] = await waitForRuns(world.agent.id, 1);
    expect(first.toolCalls[0].result).toEqual({ error: 'Tool "fetchData" timed out after 300ms' });
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("pending");
    expect((await submitResult(runId, toolCallId, { late: true })).status).toBe(200);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId, toolName: "fetchData", result: { late: true } }]);
    world.close();
  });
});

describe("async calls and the result route", () => {
  it("isAsync returns pending at once; the result arrives as a tool_result event", async () => {
    const world = await toolWorld([external({ isAsync: true })], () => [{ toolCalls: [{ name: "fetchData", args: { query: "later" } }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    const { toolCallId } = first.toolCalls[0];
    expect(first.toolCalls[0].result).toEqual({ status: "pending", pendingToolCallId: toolCallId });
    expect(first.toolCalls[0].status).toBe("pending");
    expect((await submitResult(first.id, toolCallId, { done: 1 })).status).toBe(200);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId, result: { done: 1 } }]);
    world.close();
  });

  it("duplicates, conflicts, unknown calls, other runs and missing callIds get the result route's statuses", async () => {
    const world = await toolWorld([external({ isAsync: true })], () => [{ toolCalls: [{ name: "fetchData", args: { query: "x" } }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls[0].toolCallId;
    expect((await submitResult(run.id, callId, { answer: 1, list: [1, 2] })).status).toBe(200);
    const duplicate = await submitResult(run.id, callId, { list: [1, 2], answer: 1 });
    expect(duplicate).toEqual({ status: 200, body: { success: true, duplicate: true, agentEntityId: world.agent.entityId } });
    const conflict = await submitResult(run.id, callId, { answer: 2 });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error?.code).toBe("conflict");
    expect((await submitResult(run.id, "call_unknown", {})).status).toBe(404);
    expect((await submitResult("run_other", callId, { answer: 1 })).status).toBe(403);
    const missing = await secret<{ error: { code: string } }>(`/api/runs/${run.id}/tool-results`, { body: { result: 1 } });
    expect(missing.status).toBe(400);
    await waitForRuns(world.agent.id, 2);
    world.close();
  });

  it("an expired call becomes expired, the agent hears about it, and a later submission gets 410", async () => {
    const world = await toolWorld([external({ isAsync: true, execution: { expiresIn: 400 } })], () => [
      { toolCalls: [{ name: "fetchData", args: { query: "x" } }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls[0].toolCallId;
    const [, second] = await waitForRuns(world.agent.id, 2, 8_000);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId: callId, result: null }]);
    expect((second.trigger[0] as { error?: string }).error).toMatch(/expired/);
    expect(await pendingStatus(world.agent.id, callId)).toBe("expired");
    const late = await submitResult(run.id, callId, { too: "late" });
    expect(late.status).toBe(410);
    world.close();
  });

  it("50 concurrent different results: exactly one wins, one inbox event, the rest 409", async () => {
    const world = await toolWorld([external({ isAsync: true })], () => [
      { toolCalls: [{ name: "fetchData", args: { query: "race" } }, skip] },
      { toolCalls: [skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls[0].toolCallId;
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => submitResult(run.id, callId, { submission: index })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
    await waitForRuns(world.agent.id, 2);
    const runs = await settledRuns(world.agent.id);
    const resultEvents = runs.flatMap((entry) => entry.trigger).filter((event) => event.type === "tool_result");
    expect(resultEvents).toHaveLength(1);
    expect(runs).toHaveLength(2);
    world.close();
  });
});

describe("space calls answered by people", () => {
  it("a member answers a space card with their JWT; a non-member gets 403; the card completes", async () => {
    const confirm = {
      name: "confirmAction",
      description: "Ask the person to confirm",
      executionType: "space",
      isAsync: true,
      inputSchema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
      display: { customUI: "Confirm" },
    };
    const world = await toolWorld([confirm], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "confirmAction", args: { question: "Book the hotel?" } }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const card = await world.spaceStream.waitFor((event) => event.type === "space.message" && event.data.role === "tool");
    const part = (card.data.parts as { toolCallId: string; status: string; runId: string }[])[0];
    expect(part.status).toBe("requires_action");
    const stranger = await createHuman("Stranger");
    expect((await submitResult(part.runId, part.toolCallId, { confirmed: true }, await memberHeaders(stranger))).status).toBe(403);
    const answer = await submitResult(part.runId, part.toolCallId, { confirmed: true }, await memberHeaders(world.person));
    expect(answer.status).toBe(200);
    const updated = await world.spaceStream.waitForType("space.message.updated");
    expect(updated.data).toMatchObject({ id: card.data.id, status: "complete", parts: [{ status: "complete", result: { confirmed: true } }] });
    expect((await world.spaceStream.waitForType("tool.done")).data).toMatchObject({ toolName: "confirmAction", result: { confirmed: true } });
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", result: { confirmed: true } }]);
    world.close();
  });

  it("display.mode minimal hides args and results from public-key clients; the secret key sees them", async () => {
    const secretTool = {
      name: "lookupAccount",
      description: "Look up an account",
      executionType: "internal",
      visible: true,
      display: { mode: "minimal" },
      inputSchema: { type: "object", properties: { accountId: { type: "string" } } },
    };
    const world = await toolWorld([secretTool], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "lookupAccount", args: { accountId: "acct-secret-123" } }, skip] }]);
    const { openSse } = await import("../support/stream-client");
    const publicStream = await openSse(`/api/spaces/${world.spaceId}/stream`, await memberHeaders(world.person));
    await world.wake();
    await world.spaceStream.waitForType("tool.done");
    await publicStream.collector.waitForType("tool.done");
    await publicStream.collector.waitForType("space.message.updated");
    const publicText = JSON.stringify(publicStream.collector.events);
    expect(publicText).not.toContain("acct-secret-123");
    expect(publicStream.collector.ofType("tool.done")[0].data).toEqual({ toolCallId: expect.any(String), toolName: "lookupAccount" });
    const publicCard = publicStream.collector.events.find((event) => event.type === "space.message" && event.data.role === "tool");
    expect(publicCard?.data.parts).toEqual([{ type: "tool_call", toolCallId: expect.any(String), toolName: "lookupAccount", status: "running" }]);
    expect(JSON.stringify(world.spaceStream.events)).toContain("acct-secret-123");
    const listed = await callJson<{ messages: unknown[] }>(`/api/spaces/${world.spaceId}/messages`, { headers: await memberHeaders(world.person) });
    expect(JSON.stringify(listed.body)).not.toContain("acct-secret-123");
    publicStream.close();
    world.close();
  });

  it("display.mode hidden posts nothing to the space", async () => {
    const hidden = { name: "quiet", description: "Quiet", executionType: "internal", visible: true, display: { mode: "hidden" }, inputSchema: { type: "object" } };
    const world = await toolWorld([hidden], (spaceId) => [{ toolCalls: [enter(spaceId), { name: "quiet", args: {} }, skip] }]);
    await world.wake();
    await world.spaceStream.waitForType("agent.cycle.finished");
    expect(world.spaceStream.events.filter((event) => event.type.startsWith("tool.") || event.data.role === "tool")).toEqual([]);
    world.close();
  });
});

describe("parallel calls", () => {
  it("every call in a parallel step gets exactly one result, whatever the mix", async () => {
    const tools = [
      { name: "now", description: "Inline", executionType: "internal", inputSchema: { type: "object" } },
      external({ name: "later", isAsync: true }),
      external({ name: "slow", timeout: 300 }),
      external({ name: "strict" }),
    ];
    const world = await toolWorld(
      tools,
      () => [
        {
          toolCalls: [
            { name: "now", args: { a: 1 } },
            { name: "later", args: { query: "q" } },
            { name: "slow", args: { query: "q" } },
            { name: "strict", args: { wrong: true } },
            { name: "missing_tool", args: {} },
          ],
        },
        { toolCalls: [skip] },
      ],
      { maxConcurrentTools: 2 },
    );
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const byName = Object.fromEntries(run.toolCalls.map((call) => [call.toolName, call]));
    expect(run.toolCalls.filter((call) => call.toolName !== "skip")).toHaveLength(5);
    expect(byName.now.result).toEqual({ success: true, args: { a: 1 } });
    expect(byName.later.result).toMatchObject({ status: "pending" });
    expect(byName.slow.result).toEqual({ error: 'Tool "slow" timed out after 300ms' });
    expect((byName.strict.result as { error: string }).error).toContain("Invalid arguments");
    expect(byName.missing_tool.status).toBe("failed");
    world.close();
  });
});

describe("webhooks", () => {
  it("an external call is POSTed to its webhook, signed, and retried with backoff while the endpoint is down", async () => {
    const hookId = `hook-${crypto.randomUUID()}`;
    const world = await toolWorld([external({ isAsync: true, execution: { webhook: `http://hooks.test/down/2/${hookId}` } })], () => [
      { toolCalls: [{ name: "fetchData", args: { query: "via webhook" } }, skip] },
    ]);
    await world.wake();
    const delivered = await world.agentStream.waitForType("tool.webhook.delivered", 15_000);
    expect(delivered.data.attempt).toBe(3);
    expect(world.agentStream.ofType("tool.webhook.failed").map((event) => event.data.attempt)).toEqual([1, 2]);
    const received = (await (await fetch(`http://hooks.test/recorded/${hookId}`)).json()) as { headers: Record<string, string>; body: string }[];
    expect(received).toHaveLength(3);
    const { verifyWebhookSignature } = await import("../../src/webhooks/webhook-signature");
    for (const request of received) {
      expect(await verifyWebhookSignature(env.WEBHOOK_SECRET, request.headers["x-switchboard-signature"], request.body)).toBe(true);
      expect(JSON.parse(request.body)).toMatchObject({ type: "tool.call", toolName: "fetchData", args: { query: "via webhook" } });
    }
    world.close();
  });
});
