import { describe, expect, it } from "vitest";
import { checkJsonDepth, jsonDepth, jsonTextDepth, maxJsonDepth, parseJsonSafely } from "../src/json";

const nestedArrays = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

describe("JSON depth", () => {
  it("counts objects and arrays, not primitives", () => {
    expect(jsonDepth(1)).toBe(0);
    expect(jsonDepth("[[[")).toBe(0);
    expect(jsonDepth({})).toBe(1);
    expect(jsonDepth({ a: [1, { b: null }] })).toBe(3);
    expect(jsonTextDepth("1")).toBe(0);
    expect(jsonTextDepth('{"a":[1,{"b":null}]}')).toBe(3);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(jsonTextDepth('{"a":"[[[{{{","b":"\\"[[[","c":"\\\\"}')).toBe(1);
    expect(jsonTextDepth('["\\\\", ["x"]]')).toBe(2);
  });

  it("agrees between text and value", () => {
    for (const text of [nestedArrays(10), nestedObjects(10), '{"a":[{"b":[{}]}],"c":{}}']) {
      expect(jsonTextDepth(text)).toBe(jsonDepth(JSON.parse(text)));
    }
  });

  it("stops counting past the bound, even for a cyclic value", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonDepth(cyclic, 10)).toBe(11);
    expect(checkJsonDepth(cyclic).ok).toBe(false);
    expect(jsonTextDepth(nestedArrays(1_000_000), 64)).toBe(65);
  });

  it("parses exactly the maximum and refuses one past it, for arrays and objects", () => {
    expect(maxJsonDepth).toBe(64);
    for (const nested of [nestedArrays, nestedObjects]) {
      expect(parseJsonSafely(nested(64)).ok).toBe(true);
      expect(parseJsonSafely(nested(65))).toEqual({ ok: false, code: "too_deep", message: "JSON nested deeper than 64 levels (objects and arrays) is not accepted" });
    }
    expect(checkJsonDepth(JSON.parse(nestedArrays(64)))).toEqual({ ok: true });
    expect(checkJsonDepth(JSON.parse(nestedArrays(65))).ok).toBe(false);
  });

  it("refuses thousands of levels without overflowing the stack", () => {
    for (const depth of [2_500, 3_000, 4_000, 100_000]) {
      expect(parseJsonSafely(nestedArrays(depth))).toMatchObject({ ok: false, code: "too_deep" });
      expect(parseJsonSafely(nestedObjects(depth))).toMatchObject({ ok: false, code: "too_deep" });
    }
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(checkJsonDepth(deep).ok).toBe(false);
  });

  it("still refuses __proto__ and bad JSON", () => {
    expect(parseJsonSafely('{"__proto__":{}}')).toMatchObject({ ok: false, code: "forbidden_key" });
    expect(parseJsonSafely("{")).toMatchObject({ ok: false, code: "invalid_json" });
    expect(parseJsonSafely(nestedArrays(2), { maxDepth: 1 })).toMatchObject({ ok: false, code: "too_deep" });
  });
});
