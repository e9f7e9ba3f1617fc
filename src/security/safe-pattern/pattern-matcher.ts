/**
 * Runs a compiled program over text in one pass, as a lazily built DFA: a
 * state is the set of program positions alive before a character, and the
 * state a character leads to is computed once (an epsilon closure and one
 * step, each at most the program's size) and then looked up. Nothing is ever
 * tried twice, so the work is at most (characters × program size), whatever
 * the pattern; a budget counts that work and the search stops, answering
 * "over-budget", when it runs out. The answer is whether the pattern occurs
 * anywhere in the text (a search, as `RegExp.prototype.test`).
 *
 * A matcher keeps its states for the texts it is given (a grep's lines, a
 * schema's strings), up to `maxStates`; past that it forgets them and
 * starts building again, so its memory is bounded too.
 */
import { isWordCode, setHasFolded } from "./char-set";
import { assertKinds, Op, type Program } from "./compile-program";

export type MatchResult = "match" | "no-match" | "over-budget";

/**
 * Work units a search may still spend, shared by every search of one call.
 * A character read through a known transition costs 1; building a transition
 * costs `buildWeight` per program position it touches, which is what that
 * work costs in time next to a lookup, so units measure time whichever way
 * a pattern spends them.
 */
export class PatternBudget {
  constructor(public remaining: number) {}
}

export const buildWeight = 8;
const maxStates = 512;
const matched = -1;
const unknown = 0;

type State = {
  /** Program positions alive before the next character (before their closure), ascending. */
  positions: Int32Array;
  atStart: boolean;
  previousIsWord: boolean;
  /** Next state (id + 1), `matched`, or `unknown`, for code points from 128 (below: the shared ASCII table). */
  other: Map<number, number>;
  /** Whether the text may end here: undefined until asked. */
  endMatches: boolean | undefined;
};

export class PatternMatcher {
  readonly #program: Program;
  readonly #ignoreCase: boolean;
  #states: State[] = [];
  /** State ids by the hash of their positions and flags. */
  #byHash = new Map<number, number[]>();
  /** Transitions on code points below 128, 128 entries a state: next state id + 1, `matched`, or `unknown`. */
  #ascii = new Int32Array(128 * 16);
  #initial = -1;
  /** Closure scratch: a position is visited this round when its mark equals the round. */
  readonly #marks: Int32Array;
  #round = 0;
  readonly #stack: Int32Array;
  readonly #chars: Int32Array;
  readonly #next: Int32Array;

  constructor(program: Program, ignoreCase: boolean) {
    this.#program = program;
    this.#ignoreCase = ignoreCase;
    const size = program.op.length;
    this.#marks = new Int32Array(size);
    // Each position is expanded once and pushes at most two others.
    this.#stack = new Int32Array(size * 3 + 2);
    this.#chars = new Int32Array(size);
    this.#next = new Int32Array(size + 1);
  }

  /** Whether the pattern occurs in `text`, spending from `budget`. */
  search(text: string, budget: PatternBudget): MatchResult {
    return this.#run(text, 0, text.length, budget);
  }

  /**
   * Searches each line of `text` (split at "\n", the line break not part of
   * the line) without copying it, reading at most `maxLineLength` characters
   * of a line (the rest is as if the line ended there). `onMatch` gets each
   * matching line's start and end and its index, and returns false to stop.
   * Answers "over-budget" with the start of the line it could not finish.
   */
  searchLines(
    text: string,
    budget: PatternBudget,
    onMatch: (line: { index: number; start: number; end: number }) => boolean,
    maxLineLength = Infinity,
  ): { stopped: false } | { stopped: "callback" | "over-budget"; at: number; line: number } {
    let start = 0;
    for (let index = 0; start <= text.length; index += 1) {
      const newline = text.indexOf("\n", start);
      const end = newline === -1 ? text.length : newline;
      const result = this.#run(text, start, Math.min(end, start + maxLineLength), budget);
      if (result === "over-budget") return { stopped: "over-budget", at: start, line: index };
      if (result === "match" && !onMatch({ index, start, end })) return { stopped: "callback", at: end, line: index };
      if (newline === -1) break;
      start = newline + 1;
      // A line costs at least one unit, even an empty one.
      budget.remaining -= 1;
      if (budget.remaining <= 0) return { stopped: "over-budget", at: start, line: index + 1 };
    }
    return { stopped: false };
  }

  #run(text: string, from: number, to: number, budget: PatternBudget): MatchResult {
    if (this.#initial < 0) this.#initial = this.#intern(Int32Array.of(this.#program.start), true, false);
    let state = this.#initial;
    let remaining = budget.remaining;
    let table = this.#ascii;
    for (let index = from; index < to; index += 1) {
      let code = text.charCodeAt(index);
      if (code >= 0xd800 && code <= 0xdbff && index + 1 < to) {
        const low = text.charCodeAt(index + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = (code - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          index += 1;
        }
      }
      remaining -= 1;
      let next = code < 128 ? table[state * 128 + code] : (this.#states[state].other.get(code) ?? unknown);
      if (next === unknown) {
        if (remaining <= 0) break;
        const current = this.#states[state];
        const built = this.#transition(current, code);
        remaining -= built.cost;
        next = built.next;
        table = this.#ascii;
        // The states may have been forgotten while building: `current` is then gone, and only the new id counts.
        if (this.#states[state] === current) {
          if (code < 128) table[state * 128 + code] = next;
          else current.other.set(code, next);
        }
      }
      if (next === matched) {
        budget.remaining = Math.max(0, remaining);
        return "match";
      }
      if (remaining <= 0) break;
      state = next - 1;
    }
    if (remaining <= 0) {
      budget.remaining = 0;
      return "over-budget";
    }
    const last = this.#states[state];
    if (last.endMatches === undefined) {
      const closure = this.#closure(last, -1);
      remaining -= closure.cost;
      last.endMatches = closure.matched;
    }
    budget.remaining = Math.max(0, remaining);
    if (remaining < 0) return "over-budget";
    return last.endMatches ? "match" : "no-match";
  }

  #transition(state: State, code: number): { next: number; cost: number } {
    const closure = this.#closure(state, code);
    if (closure.matched) return { next: matched, cost: closure.cost };
    const program = this.#program;
    const next = this.#next;
    // A match may start at every character: the start position (the lowest) is alive again.
    next[0] = program.start;
    let count = 1;
    for (let index = 0; index < closure.count; index += 1) {
      const position = this.#chars[index];
      const { set, negated } = program.sets[program.first[position]];
      if (setHasFolded(set, code, this.#ignoreCase) !== negated) next[count++] = program.second[position];
    }
    // Char positions are distinct and step to the position after them, so these are distinct too.
    const positions = next.slice(0, count);
    positions.subarray(1).sort();
    const id = this.#intern(positions, false, program.usesWordBoundary && isWordCode(code));
    return { next: id + 1, cost: closure.cost + buildWeight * count };
  }

  /** The Char positions reachable from the state's positions without reading (in `#chars`), given the next code point (-1: the end). */
  #closure(state: State, nextCode: number): { count: number; matched: boolean; cost: number } {
    const program = this.#program;
    const round = ++this.#round;
    const marks = this.#marks;
    const stack = this.#stack;
    const chars = this.#chars;
    const nextIsWord = nextCode >= 0 && isWordCode(nextCode);
    let count = 0;
    let depth = 0;
    let visited = 0;
    let found = false;
    for (const position of state.positions) stack[depth++] = position;
    while (depth > 0 && !found) {
      const pc = stack[--depth];
      if (marks[pc] === round) continue;
      marks[pc] = round;
      visited += 1;
      switch (program.op[pc]) {
        case Op.Char:
          chars[count++] = pc;
          break;
        case Op.Match:
          found = true;
          break;
        case Op.Jump:
          stack[depth++] = program.first[pc];
          break;
        case Op.Split:
          stack[depth++] = program.second[pc];
          stack[depth++] = program.first[pc];
          break;
        case Op.Assert: {
          const kind = assertKinds[program.first[pc]];
          const holds = kind === "start" ? state.atStart : kind === "end" ? nextCode < 0 : (state.previousIsWord !== nextIsWord) === (kind === "word-boundary");
          if (holds) stack[depth++] = program.second[pc];
          break;
        }
      }
    }
    return { count, matched: found, cost: buildWeight * (visited + state.positions.length) };
  }

  #intern(positions: Int32Array, atStart: boolean, previousIsWord: boolean): number {
    const startFlag = atStart && this.#program.usesStart;
    let hash = (startFlag ? 1 : 0) * 2 + (previousIsWord ? 1 : 0);
    for (const position of positions) hash = Math.imul(hash ^ position, 0x01000193) >>> 0;
    const bucket = this.#byHash.get(hash);
    for (const id of bucket ?? []) {
      const state = this.#states[id];
      if (state.atStart === startFlag && state.previousIsWord === previousIsWord && samePositions(state.positions, positions)) return id;
    }
    if (this.#states.length >= maxStates) {
      this.#states = [];
      this.#byHash = new Map();
      this.#ascii.fill(unknown);
      this.#initial = -1;
    }
    const id = this.#states.length;
    if ((id + 1) * 128 > this.#ascii.length) {
      const grown = new Int32Array(this.#ascii.length * 2);
      grown.set(this.#ascii);
      this.#ascii = grown;
    }
    this.#states.push({ positions, atStart: startFlag, previousIsWord, other: new Map(), endMatches: undefined });
    const current = this.#byHash.get(hash);
    if (current) current.push(id);
    else this.#byHash.set(hash, [id]);
    return id;
  }
}

function samePositions(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
  return true;
}
