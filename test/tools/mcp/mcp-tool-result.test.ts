import { describe, expect, it } from "vitest";
import { mcpToolOutcome } from "../../../src/tools/mcp/mcp-tool-result";

const nested = (depth: number): unknown => {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { next: value };
  return value;
};

describe("mcpToolOutcome", () => {
  it("turns text, structured and error answers into typed outcomes", () => {
    expect(mcpToolOutcome({ content: [{ type: "text", text: "3" }] })).toEqual({ type: "ok", value: { text: "3" } });
    expect(mcpToolOutcome({ content: [], structuredContent: { sum: 3 } })).toEqual({ type: "ok", value: { sum: 3 } });
    expect(mcpToolOutcome({ isError: true, content: [{ type: "text", text: "it broke" }] })).toEqual({ type: "error", message: "it broke", kind: "upstream" });
    expect(mcpToolOutcome({ toolResult: { legacy: true } })).toEqual({ type: "ok", value: { legacy: true } });
  });

  it("a successful answer that looks like an error is still a success", () => {
    expect(mcpToolOutcome({ content: [], structuredContent: { error: "none found", status: "pending" } })).toEqual({ type: "ok", value: { error: "none found", status: "pending" } });
  });

  it("refuses an answer nested deeper than 64 levels as a tool error, whichever field carries it", () => {
    const error = { type: "error", message: "The MCP tool's answer was refused: JSON nested deeper than 64 levels (objects and arrays) is not accepted", kind: "upstream" };
    for (const depth of [65, 3_000]) {
      expect(mcpToolOutcome({ content: [], structuredContent: nested(depth) })).toEqual(error);
      expect(mcpToolOutcome({ toolResult: nested(depth) })).toEqual(error);
      expect(mcpToolOutcome({ content: [{ type: "resource", resource: nested(depth) }] })).toEqual(error);
    }
    expect(mcpToolOutcome({ content: [], structuredContent: nested(64) })).toEqual({ type: "ok", value: nested(64) });
  });
});
