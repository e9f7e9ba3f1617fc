/**
 * `json_query`: JMESPath (the community edition: `let`, arithmetic, string
 * and grouping functions) over a JSON value. Chosen over JSONata because it
 * has no recursion and no ranges, so an expression cannot loop; the functions
 * that can grow strings (`pad_*`, `replace`, `join`, `to_string`) share a
 * budget per evaluation, so nesting them cannot exhaust the isolate's memory.
 * It can still multiply work: `$root` and `let` reach the whole value from
 * inside a projection, so `[*].[*].[*]`-shaped expressions cost the data's
 * size to a power. Every step (each node the interpreter visits, each item a
 * projection, flatten or slice builds, each item a function is given, each
 * part of two values compared with `==`) counts against `maxQuerySteps`, and
 * past it the evaluation stops with an error.
 */
import { compile, type JSONValue, TreeInterpreter } from "@jmespath-community/jmespath";
import { jsonLargerThan } from "../../json";

/** Characters the string-growing functions may produce in one evaluation. */
export const maxProducedCharacters = 2_000_000;
/** Steps one evaluation may take (see the header; `npm run bench -- --only patterns` times them). */
export const maxQuerySteps = 1_000_000;
const maxPadWidth = 10_000;

let produced = 0;
let steps = 0;

function step(count: number): void {
  steps += count;
  if (steps > maxQuerySteps) throw new Error(`The expression takes more than ${maxQuerySteps} steps over this data; narrow it`);
}

/** JSON nodes in `value`, counted up to `cap`. */
function nodesUpTo(value: unknown, cap: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count < cap) {
    const current = stack.pop();
    count += 1;
    if (Array.isArray(current)) for (const item of current) stack.push(item);
    else if (typeof current === "object" && current !== null) for (const item of Object.values(current)) stack.push(item);
  }
  return count;
}

function shallowSize(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (typeof value === "string") return Math.ceil(value.length / 16);
  if (typeof value === "object" && value !== null) return Object.keys(value).length;
  return 0;
}

type QueryNode = { type: string; name?: string; left?: QueryNode; right?: QueryNode };
type Interpreter = { visit(this: Interpreter, node: QueryNode, value: unknown): unknown };
/** The interpreter class's prototype: scoped interpreters (`let`) are new instances of it, so the count covers them too. */
const interpreter = Object.getPrototypeOf(TreeInterpreter) as Interpreter;
const originalVisit = interpreter.visit;
/** Node types that build an array as long as their result. */
const builders = new Set(["Projection", "ValueProjection", "FilterProjection", "Flatten", "Slice", "MultiSelectList"]);

interpreter.visit = function (node, value) {
  // A `let` builds a scoped interpreter with its own function table: a few dozen steps' work.
  step(node.type === "LetExpression" ? 64 : 1);
  if (node.type === "Comparator" && (node.name === "EQ" || node.name === "NE") && node.left && node.right) {
    // Deep equality walks both values: pay for the smaller, then compare them as literals.
    const left = this.visit(node.left, value);
    const right = this.visit(node.right, value);
    // The comparison stops at once on the same value, or on arrays of different lengths.
    const quick = left === right || (Array.isArray(left) && Array.isArray(right) && left.length !== right.length);
    if (!quick) step(nodesUpTo(left, nodesUpTo(right, maxQuerySteps - steps + 1)));
    return originalVisit.call(
      this,
      { type: "Comparator", name: node.name, left: { type: "Literal", value: left } as QueryNode, right: { type: "Literal", value: right } as QueryNode },
      value,
    );
  }
  const result = originalVisit.call(this, node, value);
  if (builders.has(node.type) && Array.isArray(result)) step(result.length);
  return result;
};

function spend(characters: number): void {
  produced += characters;
  if (produced > maxProducedCharacters) throw new Error(`The expression builds more than ${maxProducedCharacters} characters of strings`);
}

type Entry = { _func: (args: unknown[]) => unknown; _signature: unknown };
const table = (TreeInterpreter.runtime as unknown as { _functionTable: Record<string, Entry> })._functionTable;

function guard(name: string, before: (args: unknown[]) => void): void {
  const entry = table[name];
  if (!entry) return;
  const original = entry._func;
  entry._func = (args: unknown[]) => {
    before(args);
    const result = original(args);
    if (typeof result === "string") spend(result.length);
    return result;
  };
}

// Every function pays for what it is given (sorting a little more); `contains` compares each item deeply.
const sorting = new Set(["sort", "sort_by", "group_by", "max_by", "min_by"]);
for (const [name, entry] of Object.entries(table)) {
  const original = entry._func;
  entry._func = (args: unknown[]) => {
    const given = args.reduce((total: number, argument) => total + shallowSize(argument), 0);
    step(1 + (sorting.has(name) ? given * Math.ceil(Math.log2(given + 2)) : given));
    if (name === "contains" && Array.isArray(args[0])) step(args[0].length * nodesUpTo(args[1], maxQuerySteps - steps + 1));
    return original(args);
  };
}

guard("pad_left", (args) => {
  if (typeof args[1] === "number" && args[1] > maxPadWidth) throw new Error(`pad_left pads to at most ${maxPadWidth} characters`);
});
guard("pad_right", (args) => {
  if (typeof args[1] === "number" && args[1] > maxPadWidth) throw new Error(`pad_right pads to at most ${maxPadWidth} characters`);
});
guard("replace", ([subject, old, replacement]) => {
  if (typeof subject !== "string" || typeof old !== "string" || typeof replacement !== "string") return;
  const occurrences = old === "" ? subject.length + 1 : subject.split(old).length - 1;
  spend(Math.max(0, occurrences * (replacement.length - old.length)));
});
guard("join", ([separator, list]) => {
  if (typeof separator !== "string" || !Array.isArray(list)) return;
  spend(list.reduce((total: number, item) => total + (typeof item === "string" ? item.length : 0), 0) + separator.length * Math.max(0, list.length - 1));
});
guard("to_string", ([value]) => {
  if (typeof value !== "string" && jsonLargerThan(value, maxProducedCharacters - produced)) throw new Error(`to_string would build more than ${maxProducedCharacters} characters`);
});

export type QueryResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Evaluates `expression` on `data`; a result larger than `maxResultBytes` is refused before it is serialised. */
export function runJsonQuery(data: unknown, expression: string, maxResultBytes: number): QueryResult {
  let compiled: ReturnType<typeof compile>;
  try {
    compiled = compile(expression);
  } catch (error) {
    return { ok: false, error: `Invalid JMESPath expression: ${(error as Error).message}` };
  }
  produced = 0;
  steps = 0;
  try {
    const value: unknown = TreeInterpreter.search(compiled, data as JSONValue);
    if (jsonLargerThan(value, maxResultBytes)) return { ok: false, error: `The result is larger than ${maxResultBytes} bytes; narrow the expression` };
    return { ok: true, value: value ?? null };
  } catch (error) {
    return { ok: false, error: `The expression failed: ${(error as Error).message}` };
  } finally {
    produced = 0;
    steps = 0;
  }
}
