/**
 * A tool's `resultSchema` is enforced: a result that does not match it is
 * refused with 400 `invalid_result` naming the path, and nothing changes (the
 * call stays waiting or pending, its card still asks). `resultSchemaMode:
 * "advisory"` takes any result. The schema is checked when the agent is saved.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callJson, memberHeaders, secret } from "../support/api";
import { createAgent, waitForRuns } from "../support/agents";
import { expectErrorEnvelope } from "../support/error-envelope";
import { enter, skip, submitResult, toolWorld } from "../support/tool-world";

const resultSchema = {
  type: "object",
  required: ["sku", "count"],
  properties: {
    sku: { type: "string" },
    count: { type: "integer", minimum: 0 },
    lines: { type: "array", items: { type: "object", required: ["qty"], properties: { qty: { type: "integer" } } } },
  },
};

const external = (overrides: Record<string, unknown> = {}) => ({
  name: "reserve",
  description: "Reserve stock",
  executionType: "external",
  visible: false,
  inputSchema: { type: "object", properties: { sku: { type: "string" } } },
  resultSchema,
  ...overrides,
});

async function pendingStatus(agentId: string, callId: string): Promise<string | undefined> {
  const { body } = await secret<{ pendingToolCalls: { toolCallId: string; status: string }[] }>(`/api/agents/${agentId}/pending-tool-calls`);
  return body.pendingToolCalls.find((call) => call.toolCallId === callId)?.status;
}

/** Posts a result that must be refused: 400 invalid_result, the message naming `path`. */
async function expectRefused(runId: string, callId: string, result: unknown, path: string, headers?: Record<string, string>) {
  const answer = await submitResult(runId, callId, result, headers);
  expect(answer.status, JSON.stringify(result)).toBe(400);
  expectErrorEnvelope(answer.body, "invalid_result");
  expect(answer.body.error?.message).toContain(path);
}

describe("results are checked against the tool's resultSchema", () => {
  it("a pending call refuses a wrong type, a missing field and a bad nested value with their paths, stays pending, then takes a valid result", async () => {
    const world = await toolWorld([external({ isAsync: true })], () => [{ toolCalls: [{ name: "reserve", args: { sku: "A-1" } }, skip] }, { toolCalls: [skip] }]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const callId = run.toolCalls.find((call) => call.toolName === "reserve")?.toolCallId ?? "";
    expect(await pendingStatus(world.agent.id, callId)).toBe("pending");
    await expectRefused(run.id, callId, { sku: "A-1", count: "3" }, "/count: must be integer");
    await expectRefused(run.id, callId, { count: 3 }, "/sku: is required");
    await expectRefused(run.id, callId, { sku: "A-1", count: 3, lines: [{ qty: 1 }, { qty: "two" }] }, "/lines/1/qty");
    await expectRefused(run.id, callId, "just text", "/: must be object");
    // Nothing changed: still pending, no second run, and the valid result is taken as the first.
    expect(await pendingStatus(world.agent.id, callId)).toBe("pending");
    expect(world.agentStream.ofType("tool.result.received")).toEqual([]);
    const valid = { sku: "A-1", count: 3, lines: [{ qty: 3 }] };
    expect((await submitResult(run.id, callId, valid)).status).toBe(200);
    const [, second] = await waitForRuns(world.agent.id, 2);
    expect(second.trigger).toMatchObject([{ type: "tool_result", toolCallId: callId, result: valid }]);
    world.close();
  });

  it("a member's JWT on a visible waiting call is refused the same way, the card still asks, and a valid answer continues the cycle", async () => {
    const world = await toolWorld([external({ executionType: "space", visible: true, timeout: 20_000 })], (spaceId) => [
      { toolCalls: [enter(spaceId), { name: "reserve", args: { sku: "B-2" } }] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const { runId, toolCallId } = (await world.agentStream.waitForType("tool.pending")).data as { runId: string; toolCallId: string };
    const member = await memberHeaders(world.person);
    await expectRefused(runId, toolCallId, { sku: 7, count: 1 }, "/sku", member);
    await expectRefused(runId, toolCallId, { sku: "B-2" }, "/count: is required", member);
    expect(await pendingStatus(world.agent.id, toolCallId)).toBe("waiting");
    const card = (await secret<{ messages: { status: string; parts?: { toolCallId?: string }[] }[] }>(`/api/spaces/${world.spaceId}/messages`)).body.messages.find((message) =>
      message.parts?.some((part) => part.toolCallId === toolCallId),
    );
    expect(card?.status).toBe("requires_action");
    expect((await submitResult(runId, toolCallId, { sku: "B-2", count: 2 }, member)).status).toBe(200);
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.find((call) => call.toolName === "reserve")).toMatchObject({ status: "completed", result: { sku: "B-2", count: 2 } });
    world.close();
  });

  it("an advisory schema takes any result, and a reported error is never checked against the schema", async () => {
    const world = await toolWorld([external({ isAsync: true, resultSchemaMode: "advisory" }), external({ name: "strict", isAsync: true })], () => [
      { toolCalls: [{ name: "reserve", args: {} }, { name: "strict", args: {} }, skip] },
      { toolCalls: [skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const advisory = run.toolCalls.find((call) => call.toolName === "reserve")?.toolCallId ?? "";
    const strict = run.toolCalls.find((call) => call.toolName === "strict")?.toolCallId ?? "";
    expect(await submitResult(run.id, advisory, { anything: "goes" })).toMatchObject({ status: 200, body: { success: true } });
    const failed = await secret(`/api/runs/${run.id}/tool-results`, { body: { callId: strict, error: "out of stock" } });
    expect(failed).toMatchObject({ status: 200, body: { success: true } });
    world.close();
  });

  it("a sub-agent's answer that does not match fails the caller's call with the paths, instead of leaving it unanswered", async () => {
    const helper = await createAgent({ agent: { name: "Helper" }, model: { provider: "scripted", turns: [{ text: "Lima" }, { text: "Lima again" }] } });
    const ask = (name: string, schema: Record<string, unknown>) => ({
      name,
      description: "Ask the helper",
      executionType: "agent",
      execution: { agentId: helper.id },
      resultSchema: schema,
    });
    const world = await toolWorld(
      [ask("ask_strict", { type: "object", required: ["orderId"] }), ask("ask_loose", { type: "object", required: ["answer"], properties: { answer: { type: "string" } } })],
      () => [
        { toolCalls: [{ name: "ask_strict", args: { task: "capital of Peru?" } }] },
        { toolCalls: [{ name: "ask_loose", args: { task: "capital of Peru?" } }] },
        { toolCalls: [skip] },
      ],
    );
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1, 15_000);
    expect(run.toolCalls.find((call) => call.toolName === "ask_strict")).toMatchObject({ status: "failed", error: expect.stringContaining("/orderId: is required") });
    expect(run.toolCalls.find((call) => call.toolName === "ask_loose")).toMatchObject({ status: "completed", result: { answer: "Lima again" } });
    world.close();
  });

  it("a resultSchema that cannot compile, or a mode without a schema or of another name, is refused when the agent is saved", async () => {
    const save = (tool: Record<string, unknown>) =>
      callJson<{ error: { code: string; details?: { path: string }[] } }>("/api/agents", {
        body: { config: { agent: { name: "r" }, model: { provider: "scripted", turns: [] }, tools: [tool] } },
        headers: { "x-secret-key": env.GATEWAY_SECRET_KEY },
      });
    const cases: [Record<string, unknown>, string][] = [
      [external({ resultSchema: { type: "object", properties: { sku: { type: 5 } } } }), "config.tools.0.resultSchema.properties.sku.type"],
      [external({ resultSchema: { type: "string", pattern: "([" } }), "config.tools.0.resultSchema.pattern"],
      [external({ resultSchema: { $ref: "#/$defs/missing" } }), "config.tools.0.resultSchema"],
      [external({ resultSchema: undefined, resultSchemaMode: "advisory" }), "config.tools.0.resultSchemaMode"],
      [external({ resultSchemaMode: "strict" }), "config.tools.0.resultSchemaMode"],
    ];
    for (const [tool, path] of cases) {
      const saved = await save(tool);
      expect(saved.status, path).toBe(400);
      expectErrorEnvelope(saved.body, "validation_error");
      expect(
        saved.body.error.details?.map((detail) => detail.path).some((each) => each.startsWith(path)),
        JSON.stringify(saved.body),
      ).toBe(true);
    }
    // A schema of any JSON type is fine for a result.
    expect(
      (await createAgent({ agent: { name: "r" }, model: { provider: "scripted", turns: [] }, tools: [external({ resultSchema: { type: "array", items: { type: "string" } } })] }))
        .id,
    ).toMatch(/^agt_/);
  });
});
