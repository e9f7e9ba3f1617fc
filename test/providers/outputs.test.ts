import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { secret } from "../support/api";
import { waitForRuns } from "../support/agents";
import { providerWorld } from "../support/provider-world";
import { skip } from "../support/tool-world";

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, args });
const big = (name: string, count: number) => ({
  name,
  description: name,
  executionType: "gateway",
  visible: false,
  inputSchema: { type: "object" },
  execution: { url: `http://api.test/bigjson/${count}` },
});
type Truncated = { truncated: true; bytes: number; lines: number; handle: string; expiresAt: string; note: string; preview: string };

async function rescript(agentId: string, tools: unknown[], turns: unknown[], limits: Record<string, unknown> = {}) {
  await secret(`/api/agents/${agentId}`, { method: "PUT", body: { config: { agent: { name: "Provided" }, model: { provider: "scripted", turns }, tools, limits } } });
}

describe("whole outputs behind a handle", () => {
  it("a result over toolResponseMaxBytes is stored whole in R2; the model gets its head, size and handle, and read_output reads ranges and greps it", async () => {
    const tools = [big("inventory", 3_000)];
    const limits = { toolResponseMaxBytes: 2_000 };
    const world = await providerWorld({ tools, limits }, () => [{ toolCalls: [call("inventory"), skip] }]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    const result = first.toolCalls[0].result as Truncated;
    expect(result).toMatchObject({ truncated: true, handle: expect.stringMatching(/^out_[a-f0-9]{32}$/), expiresAt: expect.any(String) });
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(2_000);
    expect(result.preview.startsWith('{\n  "items": [\n')).toBe(true);
    expect(first.toolCalls[0]).toMatchObject({ outputHandle: result.handle, bytesOut: expect.any(Number) });
    const stored = await env.FILES.get(`outputs/${world.agent.id}/${first.toolCalls[0].toolCallId}`);
    const text = (await stored?.text()) ?? "";
    expect(text.length).toBe(result.bytes);
    expect(JSON.parse(text).items).toHaveLength(3_000);

    await rescript(
      world.agent.id,
      tools,
      [
        {
          toolCalls: [
            call("read_output", { handle: result.handle, offset: 100, limit: 50 }),
            call("read_output", { handle: result.handle, grep: "needle" }),
            call("read_output", { handle: "out_nothere" }),
            skip,
          ],
        },
      ],
      limits,
    );
    await world.wake();
    const [, second] = await waitForRuns(world.agent.id, 2);
    const [range, grep, missing] = second.toolCalls;
    expect(range.result).toEqual({ handle: result.handle, bytes: result.bytes, offset: 100, text: text.slice(100, 150), nextOffset: 150, expiresAt: result.expiresAt });
    const matches = (grep.result as { matches: { line: number; offset: number; text: string }[]; totalMatches: number }).matches;
    expect((grep.result as { totalMatches: number }).totalMatches).toBe(Math.ceil(3_000 / 97));
    const lineIndex = text.split("\n").findIndex((line) => line.includes("needle"));
    expect(matches[0]).toEqual({ line: lineIndex + 1, offset: text.indexOf('      "word": "needle"'), text: '      "word": "needle"' });
    expect(missing).toMatchObject({ status: "failed", error: 'No stored output "out_nothere"' });
    world.close();
  });

  it("an expired handle is refused with the time it expired", async () => {
    const world = await providerWorld({}, () => [{ toolCalls: [call("read_output", { handle: "out_0123456789abcdef" }), skip] }]);
    await env.FILES.put(`outputs/${world.agent.id}/call_0123456789abcdef`, "old", { customMetadata: { expiresAt: "2020-01-01T00:00:00.000Z", toolName: "x", lines: "1" } });
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls[0]).toMatchObject({ status: "failed", error: 'The output "out_0123456789abcdef" expired at 2020-01-01T00:00:00.000Z' });
    world.close();
  });

  it("the outputs of one step stay under the context budget: an output that would go past it goes behind a handle", async () => {
    const tools = [big("first", 40), big("second", 40)];
    // 1,000 tokens × 0.5 × 4 bytes: a 2,000-byte budget for the step; each answer is about 1,300 bytes.
    const world = await providerWorld({ tools, limits: { contextWindowTokens: 1_000, toolOutputContextShare: 0.5, maxConcurrentTools: 1 } }, () => [
      { toolCalls: [call("first"), call("second"), skip] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    const [first, second] = run.toolCalls;
    expect((first.result as { items: unknown[] }).items).toHaveLength(40);
    expect(second.result).toMatchObject({ truncated: true, handle: expect.stringMatching(/^out_/) });
    expect((second.result as Truncated).note).toContain("This step's tool outputs reached the context budget (2000 bytes)");
    // The orchestrator's reason and flag: stored by the budget, not the size limit.
    expect(second.result).toMatchObject({ reason: "context_budget_exceeded", toolBudgetExceeded: true, tool_output: { reason: "context_budget_exceeded" } });
    expect(first.result).not.toHaveProperty("toolBudgetExceeded");
    world.close();
  });

  it("deleting the agent deletes its stored outputs", async () => {
    const world = await providerWorld({ tools: [big("inventory", 500)], limits: { toolResponseMaxBytes: 1_000 } }, () => [{ toolCalls: [call("inventory"), skip] }]);
    await world.wake();
    await waitForRuns(world.agent.id, 1);
    expect((await env.FILES.list({ prefix: `outputs/${world.agent.id}/` })).objects).toHaveLength(1);
    await secret(`/api/agents/${world.agent.id}`, { method: "DELETE" });
    expect((await env.FILES.list({ prefix: `outputs/${world.agent.id}/` })).objects).toHaveLength(0);
    world.close();
  });
});
