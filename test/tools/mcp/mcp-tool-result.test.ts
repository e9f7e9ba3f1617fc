import { describe, expect, it } from "vitest";
import { mcpToolResult } from "../../../src/tools/mcp/mcp-tool-result";

const nested = (depth: number): unknown => {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { next: value };
  return value;
};

describe("mcpToolResult", () => {
  it("turns text, structured and error answers into the model's value", () => {
    expect(mcpToolResult({ content: [{ type: "text", text: "3" }] })).toEqual({ text: "3" });
    expect(mcpToolResult({ content: [], structuredContent: { sum: 3 } })).toEqual({ sum: 3 });
    expect(mcpToolResult({ isError: true, content: [{ type: "text", text: "it broke" }] })).toEqual({ error: "it broke" });
    expect(mcpToolResult({ toolResult: { legacy: true } })).toEqual({ legacy: true });
  });

  it("refuses an answer nested deeper than 64 levels as a tool error, whichever field carries it", () => {
    const error = { error: "The MCP tool's answer was refused: JSON nested deeper than 64 levels (objects and arrays) is not accepted" };
    for (const depth of [65, 3_000]) {
      expect(mcpToolResult({ content: [], structuredContent: nested(depth) })).toEqual(error);
      expect(mcpToolResult({ toolResult: nested(depth) })).toEqual(error);
      expect(mcpToolResult({ content: [{ type: "resource", resource: nested(depth) }] })).toEqual(error);
    }
    expect(mcpToolResult({ content: [], structuredContent: nested(64) })).toEqual(nested(64));
  });
});
