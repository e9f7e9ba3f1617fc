import { describe, expect, it } from "vitest";
import { compileSafePattern, PatternBudget, type SafePattern, type SafePatternOptions } from "../../src/security/safe-pattern/safe-pattern";

function compiled(source: string, options: SafePatternOptions = {}): SafePattern {
  const result = compileSafePattern(source, options);
  if (!result.ok) throw new Error(`${source}: ${result.message}`);
  return result.pattern;
}

/** Units a search of `text` spends (with a budget far larger than it needs). */
function unitsFor(pattern: SafePattern, text: string): number {
  const budget = new PatternBudget(1e12);
  const result = pattern.matcher().search(text, budget);
  expect(result).not.toBe("over-budget");
  return 1e12 - budget.remaining;
}

describe("the safe pattern engine: JavaScript's syntax, a finite automaton's time", () => {
  // Benign patterns only: the built-in engine answers these quickly, so it can be the oracle.
  const corpus: [string, string, string[]][] = [
    ["^\\d{4}-\\d{2}-\\d{2}$", "", ["2024-01-02", "2024-01-023", "x2024-01-02"]],
    ["\\bfoo\\b", "", ["a foo b", "afoob", "foo", "foo_bar", "foo-bar"]],
    ["\\Bx", "", ["ax", " x", "x"]],
    ["colou?r", "i", ["COLOR", "colour", "colr"]],
    ["[^a]", "i", ["A", "a", "b"]],
    ["[\\w.-]+@[\\w-]+\\.\\w{2,}", "", ["me@example.com", "me@x.c", "@x.com"]],
    ["a.c", "", ["abc", "a\nc", "a😀c"]],
    ["^.$", "u", ["😀", "ab", ""]],
    ["(?:ab|cd)+e", "", ["abcdcde", "abe", "ace"]],
    ["a{2,3}b", "", ["aab", "ab", "aaaab"]],
    ["a{2,}?b", "", ["aab", "ab"]],
    ["x*", "", ["", "yyy"]],
    ["^$", "", ["", "a"]],
    ["[]", "", ["a", ""]],
    ["[^]", "", ["a", ""]],
    ["(?<year>\\d{4})", "", ["in 1999", "in 99"]],
    ["[a-c\\d]+$", "", ["xx9a", "xx9z"]],
    ["\\u{1F600}|\\x41", "u", ["😀", "A", "B"]],
    ["\\t\\/\\.", "", ["\t/.", "\t/x"]],
    ["hello world", "i", ["Say HELLO WORLD", "hello  world"]],
  ];
  it.each(corpus)("%s (%s) answers as RegExp does", (source, flags, subjects) => {
    const pattern = compiled(source, { ignoreCase: flags.includes("i") });
    for (const subject of subjects) {
      const expected = new RegExp(source, `${flags.replace("u", "")}u`).test(subject);
      expect([subject, pattern.matcher().search(subject, new PatternBudget(1e6))]).toEqual([subject, expected ? "match" : "no-match"]);
    }
  });

  it("plain text is a literal: no character is special", () => {
    const pattern = compiled("a.b(c)*[d]\\e", { literal: true });
    expect(pattern.matcher().search("xx a.b(c)*[d]\\e yy", new PatternBudget(1e6))).toBe("match");
    expect(pattern.matcher().search("aXb(c)*[d]\\e", new PatternBudget(1e6))).toBe("no-match");
  });

  it.each([
    ["(a)\\1", "unsupported", "Backreferences are not supported"],
    ["\\k<name>", "unsupported", "Backreferences are not supported"],
    ["(?=a)b", "unsupported", "Lookahead (?=…) is not supported"],
    ["(?!a)b", "unsupported", "Lookahead (?!…) is not supported"],
    ["(?<=a)b", "unsupported", "Lookbehind (?<=…) is not supported"],
    ["(?<!a)b", "unsupported", "Lookbehind (?<!…) is not supported"],
    ["\\p{L}", "unsupported", "Unicode property escapes"],
    ["(?i)a", "unsupported", "Inline flags"],
    ["a{1001}", "unsupported", "A repetition count is above 1000"],
    ["(a{1000}){30}", "unsupported", "The pattern is too large"],
    ["(", "invalid", "Unterminated group"],
    [")", "invalid", 'Unmatched ")"'],
    ["[a", "invalid", "Unterminated character class"],
    ["a**", "invalid", "Nothing to repeat"],
    ["^*", "invalid", "Nothing to repeat"],
    ["[z-a]", "invalid", "Range out of order"],
    ["a{3,2}", "invalid", "Numbers out of order"],
    ["\\q", "invalid", 'Unknown escape "\\q"'],
  ])("%s is refused (%s) with a sentence a model can act on", (source, kind, message) => {
    const result = compileSafePattern(source);
    expect(result).toMatchObject({ ok: false, kind, message: expect.stringContaining(message) });
  });

  it("with the u flag's rule (JSON Schema) only syntax characters may be escaped", () => {
    expect(compileSafePattern("^[\\w\\_]+$", { unicode: true })).toMatchObject({ ok: false, kind: "invalid" });
    expect(compileSafePattern("^[\\w\\_]+$").ok).toBe(true);
    expect(compileSafePattern("^a\\/b\\.c[\\-x]$", { unicode: true }).ok).toBe(true);
  });

  it("the patterns that backtrack exponentially cost units linear in the text", () => {
    for (const source of ["(a+)+$", "(a|a)*$", "(a|aa)*$", "^(a?){25}a{25}$", "(\\w+\\s?)*$", "(.*a){12}x"]) {
      const pattern = compiled(source);
      const short = unitsFor(pattern, `${"a".repeat(1_000)}!`);
      const long = unitsFor(pattern, `${"a".repeat(4_000)}!`);
      // Four times the text: about four times the work (the states are built once, then looked up).
      expect([source, long <= 4 * short + 50_000]).toEqual([source, true]);
    }
  });

  it("any pattern stops when its budget runs out, and says so", () => {
    // Every character builds a new state here: the most expensive pattern of its size.
    const pattern = compiled("[a-z]{0,1000}[a-z]{0,1000}!x");
    const budget = new PatternBudget(200_000);
    expect(pattern.matcher().search("a".repeat(100_000), budget)).toBe("over-budget");
    expect(budget.remaining).toBe(0);
  });

  it("searchLines reports each matching line by position, clips long lines, and tells where a spent budget stopped it", () => {
    const pattern = compiled("^b");
    const text = "alpha\nbeta\ngamma\nbravo";
    const seen: { index: number; start: number; end: number }[] = [];
    expect(pattern.matcher().searchLines(text, new PatternBudget(1e6), (line) => seen.push(line) > 0)).toEqual({ stopped: false });
    expect(seen).toEqual([
      { index: 1, start: 6, end: 10 },
      { index: 3, start: 17, end: 22 },
    ]);
    const clipped: number[] = [];
    compiled("z$")
      .matcher()
      .searchLines(`${"a".repeat(50)}z\nz`, new PatternBudget(1e6), (line) => clipped.push(line.index) > 0, 10);
    expect(clipped).toEqual([1]);
    const many = Array.from({ length: 1_000 }, () => "a".repeat(100)).join("\n");
    const stopped = compiled("b")
      .matcher()
      .searchLines(many, new PatternBudget(20_000), () => true);
    expect(stopped).toMatchObject({ stopped: "over-budget", line: expect.any(Number) });
    expect(stopped.stopped === "over-budget" && stopped.line).toBeLessThan(1_000);
  });
});
