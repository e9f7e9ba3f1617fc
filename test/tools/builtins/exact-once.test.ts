import { describe, expect, it } from "vitest";
import { countOccurrences, replaceExactlyOnce } from "../../../src/tools/files/exact-once";

describe("the exact-once patch", () => {
  it("replaces a passage that occurs once", () => {
    expect(replaceExactlyOnce("alpha beta gamma", "beta", "BETA")).toEqual({ ok: true, text: "alpha BETA gamma" });
    expect(replaceExactlyOnce("line 1\nline 2\n", "line 2\n", "")).toEqual({ ok: true, text: "line 1\n" });
  });

  it("refuses a passage that is missing, repeated, overlapping with itself, or empty, and says why", () => {
    expect(replaceExactlyOnce("alpha", "beta", "x")).toMatchObject({ ok: false, error: expect.stringContaining("not found") });
    expect(replaceExactlyOnce("a b a", "a", "x")).toMatchObject({ ok: false, error: expect.stringContaining("occurs 2 times") });
    expect(replaceExactlyOnce("aaa", "aa", "x")).toMatchObject({ ok: false, error: expect.stringContaining("occurs 2 times") });
    expect(replaceExactlyOnce("abc", "", "x")).toMatchObject({ ok: false, error: expect.stringContaining("empty") });
    expect(replaceExactlyOnce("Alpha", "alpha", "x")).toMatchObject({ ok: false });
    expect(replaceExactlyOnce("a  b", "a b", "x")).toMatchObject({ ok: false });
  });

  it("counts overlapping occurrences and special characters literally", () => {
    expect(countOccurrences("aaaa", "aa")).toBe(3);
    expect(countOccurrences("$& $1 .*", "$&")).toBe(1);
    expect(replaceExactlyOnce("cost: $5", "$5", "$& and $1")).toEqual({ ok: true, text: "cost: $& and $1" });
  });
});
