/**
 * `json_query`: JMESPath (the community edition: `let`, arithmetic, string
 * and grouping functions) over a JSON value. Chosen over JSONata because it
 * has no recursion and no ranges, so an expression cannot loop; the functions
 * that can grow strings (`pad_*`, `replace`, `join`, `to_string`) share a
 * budget per evaluation, so nesting them cannot exhaust the isolate's memory.
 */
import { compile, type JSONValue, TreeInterpreter } from "@jmespath-community/jmespath";
import { jsonLargerThan } from "../../json";

/** Characters the string-growing functions may produce in one evaluation. */
export const maxProducedCharacters = 2_000_000;
const maxPadWidth = 10_000;

let produced = 0;

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
  let compiled;
  try {
    compiled = compile(expression);
  } catch (error) {
    return { ok: false, error: `Invalid JMESPath expression: ${(error as Error).message}` };
  }
  produced = 0;
  try {
    const value: unknown = TreeInterpreter.search(compiled, data as JSONValue);
    if (jsonLargerThan(value, maxResultBytes)) return { ok: false, error: `The result is larger than ${maxResultBytes} bytes; narrow the expression` };
    return { ok: true, value: value ?? null };
  } catch (error) {
    return { ok: false, error: `The expression failed: ${(error as Error).message}` };
  } finally {
    produced = 0;
  }
}
