/**
 * The one `.dev.vars` reader (scripts/parse-dotenv.mjs), shared by
 * `npm run dev`, the demo seeding and the CLI.
 */
import { describe, expect, it } from "vitest";
import { parseDotenv } from "../scripts/parse-dotenv.mjs";

describe("parseDotenv", () => {
  it("reads NAME=value lines, with an export prefix, white space around, and CRLF", () => {
    expect(parseDotenv("A=1\r\nexport B=two\n  C = three  \nexport\tD=4")).toEqual({ A: "1", B: "two", C: "three", D: "4" });
  });

  it("drops one pair of matching quotes, single or double, and unescapes nothing inside", () => {
    expect(parseDotenv(`A="quoted value"\nB='single'\nC="a\\nb"\nD="unmatched'\nE=""\nF="x" y"`)).toEqual({
      A: "quoted value",
      B: "single",
      C: "a\\nb",
      D: `"unmatched'`,
      E: "",
      F: 'x" y',
    });
  });

  it("skips comments, blank lines and lines that are not assignments; keeps # and = inside values", () => {
    expect(parseDotenv("# a comment\n\n  # indented\nnot an assignment\n1BAD=x\nURL=http://x.test/?a=b#frag\nKEY=")).toEqual({ URL: "http://x.test/?a=b#frag", KEY: "" });
  });

  it("a later line wins; nothing in an empty file", () => {
    expect(parseDotenv("A=1\nA=2")).toEqual({ A: "2" });
    expect(parseDotenv("")).toEqual({});
  });
});
