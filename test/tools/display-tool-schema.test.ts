import { describe, expect, it } from "vitest";
import { stripTargetSpaceId, targetSpaceIdDescription, withTargetSpaceId } from "../../src/tools/engine/display-tool-schema";

describe("withTargetSpaceId", () => {
  const schema = {
    type: "object",
    properties: { prompt: { type: "string" } },
    required: ["prompt"],
    additionalProperties: false,
  };

  it("adds an optional targetSpaceId string, first among the properties", () => {
    const shown = withTargetSpaceId(schema);
    expect(shown).toEqual({
      type: "object",
      properties: {
        targetSpaceId: { type: "string", description: targetSpaceIdDescription },
        prompt: { type: "string" },
      },
      required: ["prompt"],
      additionalProperties: false,
    });
    expect(Object.keys(shown.properties as object)[0]).toBe("targetSpaceId");
    expect(targetSpaceIdDescription).toBe("Space to display this tool call in. Must be a space you are a member of. Provide it first.");
  });

  it("leaves the tool's own schema untouched", () => {
    const before = structuredClone(schema);
    withTargetSpaceId(schema);
    expect(schema).toEqual(before);
  });

  it("works on a schema without properties and never makes targetSpaceId required", () => {
    expect(withTargetSpaceId({ type: "object" })).toEqual({
      type: "object",
      properties: { targetSpaceId: { type: "string", description: targetSpaceIdDescription } },
    });
    const declared = withTargetSpaceId({
      type: "object",
      properties: { targetSpaceId: { type: "number" } },
      required: ["targetSpaceId"],
    });
    expect(declared.required).toEqual([]);
    expect((declared.properties as Record<string, unknown>).targetSpaceId).toEqual({ type: "string", description: targetSpaceIdDescription });
  });
});

describe("stripTargetSpaceId", () => {
  it("separates the routing field from the tool's arguments", () => {
    const args = { prompt: "a sunset", targetSpaceId: "spc_1" };
    expect(stripTargetSpaceId(args)).toEqual({ args: { prompt: "a sunset" }, targetSpaceId: "spc_1" });
    expect(args).toEqual({ prompt: "a sunset", targetSpaceId: "spc_1" });
  });

  it("returns the arguments as they are when there is no targetSpaceId", () => {
    const args = { prompt: "a sunset" };
    expect(stripTargetSpaceId(args)).toEqual({ args: { prompt: "a sunset" } });
    expect(stripTargetSpaceId("text")).toEqual({ args: "text" });
    expect(stripTargetSpaceId(null)).toEqual({ args: null });
  });

  it("drops a targetSpaceId that is not a non-empty string", () => {
    expect(stripTargetSpaceId({ a: 1, targetSpaceId: 7 })).toEqual({ args: { a: 1 } });
    expect(stripTargetSpaceId({ a: 1, targetSpaceId: "" })).toEqual({ args: { a: 1 } });
  });
});
