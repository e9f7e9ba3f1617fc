import { describe, expect, it } from "vitest";
import { mediaToolResults } from "../../../src/models/media-tool-results";
import { toModelOutput } from "../../../src/tools/engine/tool-outcome";
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
    expect(mcpToolOutcome({ content: [], structuredContent: { error: "none found", status: "pending" } })).toEqual({
      type: "ok",
      value: { error: "none found", status: "pending" },
    });
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

describe("media in MCP answers", () => {
  const answer = {
    content: [
      { type: "text", text: "a chart" },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    ],
  };

  it("goes to the model as media parts when its provider takes them, described (without bytes) in the value", () => {
    const outcome = mcpToolOutcome(answer, { media: true });
    expect(outcome).toEqual({
      type: "ok",
      value: {
        content: [
          { type: "text", text: "a chart" },
          { type: "image", mimeType: "image/png", bytes: 9, note: "passed to the model as media" },
          { type: "audio", mimeType: "audio/wav", bytes: 6, note: "passed to the model as media" },
        ],
      },
      content: [
        { type: "text", text: "a chart" },
        { type: "media", data: "iVBORw0KGgo=", mediaType: "image/png" },
        { type: "media", data: "UklGRg==", mediaType: "audio/wav" },
      ],
    });
    expect(toModelOutput(outcome)).toEqual({
      type: "content",
      value: [
        { type: "text", text: "a chart" },
        { type: "file", data: { type: "data", data: "iVBORw0KGgo=" }, mediaType: "image/png" },
        { type: "file", data: { type: "data", data: "UklGRg==" }, mediaType: "audio/wav" },
      ],
    });
  });

  it("is described in words for a provider that does not take media (never base64 in text)", () => {
    const outcome = mcpToolOutcome(answer, { media: false });
    expect(outcome.type === "ok" && outcome.content).toBeUndefined();
    expect(JSON.stringify(toModelOutput(outcome))).not.toContain("iVBORw0KGgo");
    expect(JSON.stringify(toModelOutput(outcome))).toContain("its provider does not take media in tool results");
  });

  it("which providers take media in tool results", () => {
    expect(
      ["openai", "anthropic", "openai-compatible", "workers-ai", "scripted"].map((provider) =>
        mediaToolResults({ provider, name: "m", baseURL: "https://x.example", turns: [] } as never),
      ),
    ).toEqual([true, true, false, false, true]);
  });
});
