import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { estimateTokens, trimConsciousness } from "../../src/agents/consciousness";

function cycle(index: number, padding = 0): ModelMessage[] {
  return [
    { role: "user", content: `inbox ${index} ${"x".repeat(padding)}` },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${index}`, toolName: "skip", input: {} }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: `c${index}`, toolName: "skip", output: { type: "json", value: { skipped: true } } }] },
  ];
}

describe("consciousness trimming", () => {
  it("keeps everything under the budget", () => {
    const messages = [...cycle(1), ...cycle(2)];
    expect(trimConsciousness(messages, 10_000)).toEqual(messages);
  });

  it("drops whole cycles from the oldest end, never separating a tool call from its result", () => {
    const messages = Array.from({ length: 50 }, (_, index) => cycle(index, 400)).flat();
    const trimmed = trimConsciousness(messages, 2_000);
    expect(estimateTokens(trimmed)).toBeLessThanOrEqual(2_000);
    expect(trimmed.length % 3).toBe(0);
    expect(trimmed[0].role).toBe("user");
    expect(trimmed.at(-1)).toEqual(messages.at(-1));
    const calls = trimmed.flatMap((message) => (message.role === "assistant" && Array.isArray(message.content) ? message.content : []));
    const results = trimmed.flatMap((message) => (message.role === "tool" ? message.content : []));
    expect(calls.length).toBe(results.length);
  });

  it("keeps the newest cycle whole even when it alone is over the budget", () => {
    const messages = [...cycle(1), ...cycle(2, 50_000)];
    expect(trimConsciousness(messages, 1_000)).toEqual(cycle(2, 50_000));
  });
});

describe("remembering big tool results", () => {
  it("shortens large tool results before storing them and leaves small ones alone", async () => {
    const { compactToolResults } = await import("../../src/agents/consciousness");
    const big = { type: "json" as const, value: { data: "y".repeat(50_000) } };
    const messages: ModelMessage[] = [...cycle(1), { role: "tool", content: [{ type: "tool-result", toolCallId: "big", toolName: "fetch", output: big }] }];
    const compacted = compactToolResults(messages, 1_000);
    expect(compacted.slice(0, 3)).toEqual(messages.slice(0, 3));
    const part = (compacted[3].content as { output: { type: string; value: string } }[])[0];
    expect(part.output.type).toBe("text");
    expect(part.output.value.length).toBeLessThan(1_100);
    expect(part.output.value).toContain("shortened in memory");
  });
});
