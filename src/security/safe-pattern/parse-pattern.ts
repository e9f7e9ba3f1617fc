/**
 * Parses the regular-expression subset the safe pattern engine runs: the
 * features that a finite automaton can match in one pass (literals, escapes,
 * classes, `.`, quantifiers greedy or lazy, alternation, groups, `^ $ \b \B`).
 * Features that need backtracking (backreferences, lookahead, lookbehind) and
 * ones it does not implement (Unicode property escapes, inline flags) are
 * refused with a sentence saying which, so a model or an author can rewrite
 * the pattern. The syntax is JavaScript's; a `{` or `}` that is not a
 * quantifier is a literal, as in JavaScript without the `u` flag.
 */
import { type CharSet, digitSet, dotSet, negateSet, normalizeSet, spaceSet, wordSet } from "./char-set";

export type AssertKind = "start" | "end" | "word-boundary" | "not-word-boundary";

export type PatternNode =
  | { type: "set"; set: CharSet; negated: boolean }
  | { type: "sequence"; items: PatternNode[] }
  | { type: "alternation"; options: PatternNode[] }
  | { type: "repeat"; body: PatternNode; min: number; max: number }
  | { type: "assert"; kind: AssertKind };

/** `invalid`: not a regular expression at all; `unsupported`: one, but with a feature this engine refuses. */
export type PatternRefusalKind = "invalid" | "unsupported";

export type ParsedPattern = { ok: true; node: PatternNode } | { ok: false; kind: PatternRefusalKind; message: string };

/** Longest pattern accepted, in characters. */
export const maxPatternLength = 10_000;
/** Largest count in `{m,n}`. */
export const maxRepeatCount = 1_000;
/** Deepest nesting of groups. */
export const maxGroupDepth = 100;

class Refusal extends Error {
  constructor(
    message: string,
    readonly kind: PatternRefusalKind,
  ) {
    super(message);
  }
}

const classEscapes: Record<string, { set: CharSet; negated: boolean }> = {
  d: { set: digitSet, negated: false },
  D: { set: digitSet, negated: true },
  w: { set: wordSet, negated: false },
  W: { set: wordSet, negated: true },
  s: { set: spaceSet, negated: false },
  S: { set: spaceSet, negated: true },
};
const syntaxCharacters = new Set(["^", "$", "\\", ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "/"]);
const controlEscapes: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b };

/**
 * `unicode`: escapes as with the `u` flag (as JSON Schema applies patterns):
 * only syntax characters and "/" may be escaped. Without it any character
 * but a letter or digit may be (as a grep would expect).
 */
export function parsePattern(source: string, unicode = false): ParsedPattern {
  if (source.length > maxPatternLength) return { ok: false, kind: "unsupported", message: `The pattern is longer than ${maxPatternLength} characters` };
  const parser = new Parser(source, unicode);
  try {
    const node = parser.disjunction(0);
    if (parser.index < parser.chars.length) parser.fail(`Unmatched ")"`);
    return { ok: true, node };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, kind: error.kind, message: error.message };
    throw error;
  }
}

class Parser {
  readonly chars: string[];
  index = 0;

  constructor(
    source: string,
    readonly unicode: boolean,
  ) {
    this.chars = Array.from(source);
  }

  fail(message: string): never {
    throw new Refusal(`${message} (at position ${this.index})`, "invalid");
  }

  /** A regular expression this engine does not run (backtracking features, limits). */
  refuse(message: string): never {
    throw new Refusal(`${message} (at position ${this.index})`, "unsupported");
  }

  peek(offset = 0): string | undefined {
    return this.chars[this.index + offset];
  }

  disjunction(depth: number): PatternNode {
    const options = [this.alternative(depth)];
    while (this.peek() === "|") {
      this.index += 1;
      options.push(this.alternative(depth));
    }
    return options.length === 1 ? options[0] : { type: "alternation", options };
  }

  alternative(depth: number): PatternNode {
    const items: PatternNode[] = [];
    for (let next = this.peek(); next !== undefined && next !== "|" && next !== ")"; next = this.peek()) {
      items.push(this.term(depth));
    }
    return items.length === 1 ? items[0] : { type: "sequence", items };
  }

  term(depth: number): PatternNode {
    const character = this.peek();
    if (character === "^" || character === "$") {
      this.index += 1;
      return this.noQuantifier({ type: "assert", kind: character === "^" ? "start" : "end" });
    }
    if (character === "\\" && (this.peek(1) === "b" || this.peek(1) === "B")) {
      this.index += 2;
      return this.noQuantifier({ type: "assert", kind: this.chars[this.index - 1] === "b" ? "word-boundary" : "not-word-boundary" });
    }
    const atom = this.atom(depth);
    return this.quantified(atom);
  }

  noQuantifier(node: PatternNode): PatternNode {
    const next = this.peek();
    if (next === "*" || next === "+" || next === "?" || (next === "{" && this.readBraces(false) !== undefined))
      this.fail("Nothing to repeat: an anchor or boundary cannot take a quantifier");
    return node;
  }

  atom(depth: number): PatternNode {
    const character = this.chars[this.index];
    switch (character) {
      case "(":
        return this.group(depth);
      case "[":
        return this.characterClass();
      case ".":
        this.index += 1;
        return { type: "set", set: dotSet, negated: false };
      case "\\":
        return this.atomEscape();
      case "*":
      case "+":
      case "?":
        return this.fail(`Nothing to repeat before "${character}"`);
      case "{":
        if (this.readBraces(false) !== undefined) this.fail('Nothing to repeat before "{"');
        break;
    }
    this.index += 1;
    const code = character.codePointAt(0) as number;
    return { type: "set", set: [[code, code]], negated: false };
  }

  group(depth: number): PatternNode {
    if (depth >= maxGroupDepth) this.refuse(`Groups are nested more than ${maxGroupDepth} deep`);
    this.index += 1;
    if (this.peek() === "?") {
      const kind = this.peek(1);
      const after = this.peek(2);
      if (kind === ":") this.index += 2;
      else if (kind === "=" || kind === "!") this.refuse(`Lookahead (?${kind}…) is not supported: patterns run on a linear-time engine`);
      else if (kind === "<" && (after === "=" || after === "!")) this.refuse(`Lookbehind (?<${after}…) is not supported: patterns run on a linear-time engine`);
      else if (kind === "<") {
        const close = this.chars.indexOf(">", this.index + 2);
        const name = close === -1 ? "" : this.chars.slice(this.index + 2, close).join("");
        if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) this.fail("Invalid group name");
        this.index = close + 1;
      } else this.refuse("Inline flags and other (?…) groups are not supported (use the ignore-case option instead)");
    }
    const inner = this.disjunction(depth + 1);
    if (this.peek() !== ")") this.fail('Unterminated group: missing ")"');
    this.index += 1;
    return inner;
  }

  quantified(atom: PatternNode): PatternNode {
    const character = this.peek();
    let bounds: [number, number] | undefined;
    if (character === "*") bounds = [0, Infinity];
    else if (character === "+") bounds = [1, Infinity];
    else if (character === "?") bounds = [0, 1];
    else if (character === "{") bounds = this.readBraces(true);
    if (bounds === undefined) return atom;
    if (character !== "{") this.index += 1;
    // Lazy and greedy match the same lines: the engine answers whether there is a match, not which.
    if (this.peek() === "?") this.index += 1;
    const next = this.peek();
    if (next === "*" || next === "+" || next === "?" || (next === "{" && this.readBraces(false) !== undefined))
      this.fail("Nothing to repeat: a quantifier cannot follow a quantifier");
    return { type: "repeat", body: atom, min: bounds[0], max: bounds[1] };
  }

  /** `{m}`, `{m,}` or `{m,n}` at the current position (consumed when `consume`), or undefined when it is not a quantifier. */
  readBraces(consume: boolean): [number, number] | undefined {
    let position = this.index + 1;
    const digits = (): string => {
      let text = "";
      while (/^[0-9]$/.test(this.chars[position] ?? "")) text += this.chars[position++];
      return text;
    };
    const low = digits();
    if (low === "") return undefined;
    let high = low;
    if (this.chars[position] === ",") {
      position += 1;
      high = digits();
    }
    if (this.chars[position] !== "}") return undefined;
    if (!consume) return [0, 0];
    const min = Number(low);
    const max = high === "" ? Infinity : Number(high);
    if (min > maxRepeatCount || (max !== Infinity && max > maxRepeatCount)) this.refuse(`A repetition count is above ${maxRepeatCount}`);
    if (max < min) this.fail("Numbers out of order in a {m,n} quantifier");
    this.index = position + 1;
    return [min, max];
  }

  atomEscape(): PatternNode {
    const letter = this.peek(1);
    if (letter === undefined) this.fail("The pattern ends with a lone backslash");
    if (letter in classEscapes) {
      this.index += 2;
      return { type: "set", ...classEscapes[letter] };
    }
    if (/^[1-9]$/.test(letter) || letter === "k") this.refuse("Backreferences are not supported: patterns run on a linear-time engine");
    const code = this.characterEscape(false);
    return { type: "set", set: [[code, code]], negated: false };
  }

  /** One escaped character (the backslash at the current position); `inClass` makes `\b` a backspace. */
  characterEscape(inClass: boolean): number {
    const letter = this.chars[this.index + 1];
    this.index += 2;
    if (letter in controlEscapes) return controlEscapes[letter];
    if (letter === "b" && inClass) return 0x08;
    if (letter === "0") {
      if (/^[0-9]$/.test(this.peek() ?? "")) this.refuse("Octal escapes are not supported");
      return 0;
    }
    if (letter === "x") return this.hexDigits(2);
    if (letter === "u") return this.unicodeEscape();
    if (letter === "c") {
      const control = this.peek();
      if (control === undefined || !/^[A-Za-z]$/.test(control)) this.fail("\\c must be followed by a letter");
      this.index += 1;
      return (control.codePointAt(0) as number) % 32;
    }
    if (letter === "p" || letter === "P") this.refuse("Unicode property escapes (\\p{…}) are not supported");
    if (/^[A-Za-z0-9]$/.test(letter)) this.fail(`Unknown escape "\\${letter}"`);
    // As with the `u` flag: only syntax characters and "/" (and "-" in a class) may be escaped.
    if (this.unicode && !syntaxCharacters.has(letter) && !(inClass && letter === "-"))
      this.fail(`Unknown escape "\\${letter}" (with the u flag only syntax characters are escaped)`);
    return letter.codePointAt(0) as number;
  }

  hexDigits(count: number): number {
    const text = this.chars.slice(this.index, this.index + count).join("");
    if (text.length !== count || !/^[0-9A-Fa-f]+$/.test(text)) this.fail(`Expected ${count} hexadecimal digits`);
    this.index += count;
    return parseInt(text, 16);
  }

  unicodeEscape(): number {
    if (this.peek() === "{") {
      const close = this.chars.indexOf("}", this.index);
      const text = close === -1 ? "" : this.chars.slice(this.index + 1, close).join("");
      if (!/^[0-9A-Fa-f]{1,6}$/.test(text) || parseInt(text, 16) > 0x10ffff) this.fail("Invalid \\u{…} escape");
      this.index = close + 1;
      return parseInt(text, 16);
    }
    const code = this.hexDigits(4);
    // A surrogate pair written as two escapes is one character.
    if (code >= 0xd800 && code <= 0xdbff && this.peek() === "\\" && this.peek(1) === "u") {
      const saved = this.index;
      this.index += 2;
      if (/^[0-9A-Fa-f]{4}$/.test(this.chars.slice(this.index, this.index + 4).join(""))) {
        const low = this.hexDigits(4);
        if (low >= 0xdc00 && low <= 0xdfff) return (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
      }
      this.index = saved;
    }
    return code;
  }

  characterClass(): PatternNode {
    this.index += 1;
    const negated = this.peek() === "^";
    if (negated) this.index += 1;
    const ranges: (readonly [number, number])[] = [];
    while (this.peek() !== "]") {
      if (this.peek() === undefined) this.fail('Unterminated character class: missing "]"');
      const first = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.index += 1;
        const second = this.classAtom();
        if (typeof first !== "number" || typeof second !== "number") this.fail("A range in a class cannot use \\d, \\w or \\s");
        if (second < first) this.fail("Range out of order in a character class");
        ranges.push([first, second]);
      } else if (typeof first === "number") ranges.push([first, first]);
      else ranges.push(...first);
    }
    this.index += 1;
    return { type: "set", set: normalizeSet(ranges), negated };
  }

  /** One member of a class: a code point, or the ranges of a class escape (`\d`, `\W`…). */
  classAtom(): number | CharSet {
    const character = this.chars[this.index];
    if (character !== "\\") {
      this.index += 1;
      return character.codePointAt(0) as number;
    }
    const letter = this.peek(1);
    if (letter !== undefined && letter in classEscapes) {
      this.index += 2;
      const classEscape = classEscapes[letter];
      return classEscape.negated ? negateSet(classEscape.set) : classEscape.set;
    }
    if (letter === "-") {
      this.index += 2;
      return 0x2d;
    }
    if (letter === "B") this.fail("\\B has no meaning inside a character class");
    if (letter !== undefined && /^[1-9]$/.test(letter)) this.refuse("Backreferences are not supported: patterns run on a linear-time engine");
    if (letter === undefined) this.fail("The pattern ends with a lone backslash");
    return this.characterEscape(true);
  }
}
