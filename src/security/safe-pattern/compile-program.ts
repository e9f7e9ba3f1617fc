/**
 * Turns a parsed pattern into a Thompson NFA program: a flat list of
 * instructions (match a character set, split, jump, assert, match). A
 * counted repetition `{m,n}` is written out m to n times, so the program's
 * size is computed first and a pattern that would be larger than
 * `maxProgramSize` is refused before anything is built: the size bounds the
 * work per character of the matcher.
 */
import type { CharSet } from "./char-set";
import type { AssertKind, PatternNode } from "./parse-pattern";

export const maxProgramSize = 20_000;

export const Op = { Char: 0, Split: 1, Jump: 2, Assert: 3, Match: 4 } as const;
type OpCode = (typeof Op)[keyof typeof Op];

export type MatchSet = { set: CharSet; negated: boolean };

/** `op[pc]` with its operands: Char (set index, next), Split (first, second), Jump (target), Assert (kind index, next). */
export type Program = {
  op: Uint8Array;
  first: Int32Array;
  second: Int32Array;
  sets: MatchSet[];
  start: number;
  usesWordBoundary: boolean;
  usesStart: boolean;
};

export const assertKinds: AssertKind[] = ["start", "end", "word-boundary", "not-word-boundary"];

export type CompiledProgram = { ok: true; program: Program } | { ok: false; kind: "unsupported"; message: string };

/** Instructions `node` compiles to (saturating at just past the limit). */
function sizeOf(node: PatternNode): number {
  switch (node.type) {
    case "set":
    case "assert":
      return 1;
    case "sequence":
      return Math.min(
        maxProgramSize + 1,
        node.items.reduce((total, item) => total + sizeOf(item), 0),
      );
    case "alternation":
      return Math.min(maxProgramSize + 1, node.options.reduce((total, option) => total + sizeOf(option), 0) + 2 * (node.options.length - 1));
    case "repeat": {
      const body = sizeOf(node.body);
      const optional = node.max === Infinity ? body + 2 : (node.max - node.min) * (body + 1);
      return Math.min(maxProgramSize + 1, node.min * body + optional);
    }
  }
}

export function compileProgram(node: PatternNode): CompiledProgram {
  const size = sizeOf(node) + 1;
  if (size > maxProgramSize) return { ok: false, kind: "unsupported", message: `The pattern is too large: its repetitions write out to more than ${maxProgramSize} steps` };
  const builder = new Builder(size);
  builder.emit(node);
  builder.add(Op.Match, 0, 0);
  return { ok: true, program: builder.program() };
}

class Builder {
  readonly op: Uint8Array;
  readonly first: Int32Array;
  readonly second: Int32Array;
  readonly sets: MatchSet[] = [];
  length = 0;
  usesWordBoundary = false;
  usesStart = false;

  constructor(size: number) {
    this.op = new Uint8Array(size);
    this.first = new Int32Array(size);
    this.second = new Int32Array(size);
  }

  add(op: OpCode, first: number, second: number): number {
    const pc = this.length++;
    this.op[pc] = op;
    this.first[pc] = first;
    this.second[pc] = second;
    return pc;
  }

  emit(node: PatternNode): void {
    switch (node.type) {
      case "set":
        this.sets.push({ set: node.set, negated: node.negated });
        this.add(Op.Char, this.sets.length - 1, this.length + 1);
        return;
      case "assert":
        if (node.kind === "word-boundary" || node.kind === "not-word-boundary") this.usesWordBoundary = true;
        if (node.kind === "start") this.usesStart = true;
        this.add(Op.Assert, assertKinds.indexOf(node.kind), this.length + 1);
        return;
      case "sequence":
        for (const item of node.items) this.emit(item);
        return;
      case "alternation": {
        const jumps: number[] = [];
        node.options.forEach((option, index) => {
          if (index === node.options.length - 1) {
            this.emit(option);
            return;
          }
          const split = this.add(Op.Split, this.length + 1, 0);
          this.emit(option);
          jumps.push(this.add(Op.Jump, 0, 0));
          this.second[split] = this.length;
        });
        for (const jump of jumps) this.first[jump] = this.length;
        return;
      }
      case "repeat":
        this.emitRepeat(node.body, node.min, node.max);
        return;
    }
  }

  emitRepeat(body: PatternNode, min: number, max: number): void {
    for (let count = 0; count < min; count += 1) this.emit(body);
    if (max === Infinity) {
      const loop = this.add(Op.Split, this.length + 1, 0);
      this.emit(body);
      this.add(Op.Jump, loop, 0);
      this.second[loop] = this.length;
      return;
    }
    // (body(body(…)?)?)?: every optional copy may leave straight to the end.
    const splits: number[] = [];
    for (let count = min; count < max; count += 1) {
      splits.push(this.add(Op.Split, this.length + 1, 0));
      this.emit(body);
    }
    for (const split of splits) this.second[split] = this.length;
  }

  program(): Program {
    return {
      op: this.op.subarray(0, this.length),
      first: this.first.subarray(0, this.length),
      second: this.second.subarray(0, this.length),
      sets: this.sets,
      start: 0,
      usesWordBoundary: this.usesWordBoundary,
      usesStart: this.usesStart,
    };
  }
}
