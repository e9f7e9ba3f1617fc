/**
 * Checks a model's tool arguments against the tool's input schema before the
 * tool runs: failures go back to the model as a tool error it can
 * correct. The schema is compiled once (`compileInputSchema`, with
 * `@cfworker/json-schema`: no `eval`, so it runs on Workers). Its raw errors
 * are rewritten into short lines a model can act on (`/city: must be string`).
 */
import type { OutputUnit } from "@cfworker/json-schema";
import { compileInputSchema } from "../json-schema/compile-input-schema";
import { ValidationBudgetError } from "../json-schema/safe-validator";
import { describeStringCheck, type StringCheckPlan } from "../json-schema/string-checks";

export type ArgumentValidation = { ok: true } | { ok: false; problems: string[] };

/** Validates `args` against `schema`, reporting every problem as `/path: message`. Never throws. */
export function validateToolArguments(schema: Record<string, unknown>, args: unknown): ArgumentValidation {
  if (args === undefined) return { ok: false, problems: ["/: arguments are missing (a JSON object is expected)"] };
  const compiled = compileInputSchema(schema);
  if (!compiled.ok) {
    const [first] = compiled.problems;
    const where = first.path.length > 0 ? ` at ${first.path.join(".")}` : "";
    return { ok: false, problems: [`the tool's input schema is invalid${where}: ${first.message}`] };
  }
  try {
    const result = compiled.validator.validate(args);
    if (result.valid) return { ok: true };
    const problems = describeValidationErrors(result.errors, schema, compiled.validator.plan);
    return { ok: false, problems: problems.length > 0 ? problems : ["/: does not match the input schema"] };
  } catch (error) {
    if (error instanceof ValidationBudgetError) return { ok: false, problems: [`/: the value was not checked: ${error.message}`] };
    return { ok: false, problems: [`the tool's input schema could not be applied: ${(error as Error).message.split("\n")[0].trim()}`] };
  }
}

/** The tool error given back to the model when its arguments fail the schema. */
export function formatArgumentError(toolName: string, problems: string[]): string {
  return `Invalid arguments for tool "${toolName}": ${problems.join("; ")}. Fix the arguments and call the tool again.`;
}

// --- Turning validator output into readable lines ---

/** Keywords whose error only reports that a nested schema failed. */
const wrapperKeywords = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
]);

const maxProblemLines = 20;

function describeValidationErrors(errors: OutputUnit[], schema: Record<string, unknown>, plan: StringCheckPlan): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    if (wrapperKeywords.has(error.keyword) && hasNestedError(error, errors)) continue;
    const line = describeError(error, schema, plan);
    if (line !== undefined && !lines.includes(line)) lines.push(line);
  }
  if (lines.length > maxProblemLines) {
    const hidden = lines.length - maxProblemLines;
    return [...lines.slice(0, maxProblemLines), `…and ${hidden} more problem${hidden === 1 ? "" : "s"}`];
  }
  return lines;
}

function hasNestedError(parent: OutputUnit, errors: OutputUnit[]): boolean {
  return errors.some(
    (other) => other !== parent && (other.keywordLocation.startsWith(`${parent.keywordLocation}/`) || other.instanceLocation.startsWith(`${parent.instanceLocation}/`)),
  );
}

function describeError(error: OutputUnit, schema: Record<string, unknown>, plan: StringCheckPlan): string | undefined {
  const location = displayLocation(error.instanceLocation);
  const suffix = branchSuffix(error.keywordLocation);
  const text = error.error.replace(/\.$/, "");
  let match: RegExpMatchArray | null;
  switch (error.keyword) {
    case "type":
      match = text.match(/Expected "(.+)"$/);
      return `${location}: must be ${match ? match[1].split('", "').join(" or ") : "of another type"}${suffix}`;
    case "required":
      match = text.match(/required property "(.*)"$/);
      return match ? `${childLocation(location, match[1])}: is required${suffix}` : `${location}: ${text}${suffix}`;
    case "enum":
      return `${location}: ${text.replace("Instance does not match any of", "must be one of")}${suffix}`;
    case "const":
      return `${location}: ${text.replace("Instance does not match", "must equal")}${suffix}`;
    case "false":
      return `${location}: is not allowed${suffix}`;
    case "anyOf":
      return `${location}: must match at least one of the anyOf options${suffix}`;
    case "oneOf":
      match = text.match(/\((\d+) matches\)/);
      return `${location}: must match exactly one of the oneOf options (it matches ${match ? match[1] : "none"})${suffix}`;
    case "not":
      return `${location}: must not match the "not" schema${suffix}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `${location}: ${describeBound(text)}${suffix}`;
    case "minLength":
    case "maxLength":
      match = text.match(/\((\d+) [<>] (\d+)\)/);
      return `${location}: must have ${error.keyword === "minLength" ? "at least" : "at most"} ${match ? match[2] : "the allowed number of"} characters${suffix}`;
    case "minItems":
    case "maxItems":
      match = text.match(/\((\d+) [<>] (\d+)\)/);
      return `${location}: must have ${error.keyword === "minItems" ? "at least" : "at most"} ${match ? match[2] : "the allowed number of"} items${suffix}`;
    case "pattern": {
      const pattern = schemaValueAt(schema, error.keywordLocation);
      return `${location}: must match the pattern ${typeof pattern === "string" ? JSON.stringify(pattern) : "given in the schema"}${suffix}`;
    }
    case "format": {
      // The library's sentence names the format; a pattern or format checked on the linear engine has a private name.
      match = text.match(/format "(.*)"$/s);
      const checked = match ? describeStringCheck(plan, match[1]) : undefined;
      if (checked !== undefined) return `${location}: ${checked}${suffix}`;
      return `${location}: must be a valid ${match ? match[1] : "value for its format"}${suffix}`;
    }
    default:
      return `${location}: ${text}${suffix}`;
  }
}

function describeBound(text: string): string {
  const match = text.match(/ is (less|greater) than (or equal to )?\s*(.+)$/);
  if (!match) return text;
  const [, direction, orEqual, bound] = match;
  if (direction === "less") return `must be ${orEqual ? ">" : ">="} ${bound}`;
  return `must be ${orEqual ? "<" : "<="} ${bound}`;
}

/** `#/a%20b/0` → `/a b/0`; the root is `/`. Pointer escapes (`~0`, `~1`) are kept. */
function displayLocation(instanceLocation: string): string {
  const pointer = instanceLocation.replace(/^#/, "");
  if (pointer === "") return "/";
  try {
    return decodeURI(pointer).replace(/%23/g, "#");
  } catch {
    return pointer;
  }
}

function childLocation(location: string, key: string): string {
  const escaped = key.replace(/~/g, "~0").replace(/\//g, "~1");
  return location === "/" ? `/${escaped}` : `${location}/${escaped}`;
}

/** Names the anyOf/oneOf option an error came from, so alternatives don't read as joint demands. */
function branchSuffix(keywordLocation: string): string {
  const matches = [...keywordLocation.matchAll(/\/(anyOf|oneOf)\/(\d+)\//g)];
  const last = matches.at(-1);
  return last ? ` (${last[1]} option ${Number(last[2]) + 1})` : "";
}

/** Follows a keyword location through the schema, jumping through local `$ref`s. */
function schemaValueAt(schema: Record<string, unknown>, keywordLocation: string): unknown {
  let node: unknown = schema;
  const segments = keywordLocation
    .replace(/^#\/?/, "")
    .split("/")
    .filter((segment) => segment !== "");
  for (const raw of segments) {
    if (typeof node !== "object" || node === null) return undefined;
    const record = node as Record<string, unknown>;
    if ((raw === "$ref" || raw === "$recursiveRef") && typeof record[raw] === "string") {
      const target = record[raw] as string;
      node = target.startsWith("#") ? schemaValueAt(schema, target) : undefined;
      continue;
    }
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      segment = raw;
    }
    node = record[segment.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}
