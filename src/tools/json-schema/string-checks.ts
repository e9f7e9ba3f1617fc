/**
 * How a tool schema's regular expressions and formats are checked without
 * the JavaScript engine's backtracking one. `@cfworker/json-schema` runs
 * `pattern` and `patternProperties` with `new RegExp(…, "u")` against the
 * model's arguments, and `(a+)+$` over thirty `a`s holds the isolate for
 * seconds. So the validator never sees them:
 *
 * - every `pattern` and `patternProperties` key is compiled at save by the
 *   linear-time engine (`security/safe-pattern`) and refused, naming its
 *   path, when it is not a regular expression or uses what that engine does
 *   not run (backreferences, lookaround);
 * - in the validator's copy of the schema a `pattern`, and an asserted
 *   `format`, become one private format name per schema object (`format` is
 *   the library's hook for string checks: its table is the one exported,
 *   and these names start with a NUL character no real format has); the
 *   check runs the pattern on the linear engine and the format by
 *   `format-checks.ts`, within the call's budget;
 * - `patternProperties` is turned, for each call, into the `properties` of
 *   the names the arguments actually use (each name matched on the linear
 *   engine), which the library applies exactly as it would have applied the
 *   patterns: same subschemas, same names counted as evaluated; the copy is
 *   restored when the (synchronous) validation returns.
 */
import { format as libraryFormats } from "@cfworker/json-schema";
import { compileSafePattern, type PatternBudget, type PatternMatcher, type SafePattern } from "../../security/safe-pattern/safe-pattern";
import { assertedFormats, checkFormat } from "./format-checks";
import type { SchemaProblem } from "./compile-input-schema";
import type { SchemaNode } from "./schema-reference-problems";

const slotPrefix = "\u0000switchboard-string-check-";

/** What one schema object's private format stands for. */
export type StringCheck = { pattern?: { source: string; compiled: SafePattern }; format?: string };

type PatternPropertiesNode = {
  schema: Record<string, unknown>;
  entries: { pattern: SafePattern; subschema: unknown }[];
  properties: unknown;
  patternProperties: unknown;
};

export type StringCheckPlan = { checks: StringCheck[]; patternNodes: PatternPropertiesNode[] };

/** Raised inside a validation whose string checks spent the call's budget: the validation is abandoned. */
export class ValidationBudgetError extends Error {}

/**
 * Compiles every pattern of the schema's objects and rewrites the copy as
 * described above, or reports each pattern that cannot be used.
 */
export function planStringChecks(nodes: SchemaNode[]): { ok: true; plan: StringCheckPlan } | { ok: false; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  const plan: StringCheckPlan = { checks: [], patternNodes: [] };
  const rewrites: (() => void)[] = [];
  for (const { schema, path } of nodes) {
    const check: StringCheck = {};
    if (typeof schema.pattern === "string") {
      const compiled = compileSafePattern(schema.pattern, { unicode: true });
      if (compiled.ok) check.pattern = { source: schema.pattern, compiled: compiled.pattern };
      else problems.push({ path: [...path, "pattern"], message: refusalMessage("Not", compiled) });
    }
    if (typeof schema.format === "string" && assertedFormats.has(schema.format)) check.format = schema.format;
    if (check.pattern !== undefined || check.format !== undefined) {
      const index = plan.checks.length;
      plan.checks.push(check);
      rewrites.push(() => {
        delete schema.pattern;
        schema.format = slotName(index);
      });
    } else if (typeof schema.format === "string" && schema.format.startsWith(slotPrefix)) {
      // A schema may not name a private check itself.
      rewrites.push(() => delete schema.format);
    }
    if (isRecord(schema.patternProperties)) {
      const entries: PatternPropertiesNode["entries"] = [];
      for (const [key, subschema] of Object.entries(schema.patternProperties)) {
        const compiled = compileSafePattern(key, { unicode: true });
        if (compiled.ok) entries.push({ pattern: compiled.pattern, subschema });
        else problems.push({ path: [...path, "patternProperties", key], message: refusalMessage("The key is not", compiled) });
      }
      plan.patternNodes.push({ schema, entries, properties: schema.properties, patternProperties: schema.patternProperties });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  for (const rewrite of rewrites) rewrite();
  for (const index of plan.checks.keys()) registerSlot(index);
  for (const node of plan.patternNodes) delete node.schema.patternProperties;
  return { ok: true, plan };
}

function refusalMessage(lead: string, refusal: { kind: "invalid" | "unsupported"; message: string }): string {
  return refusal.kind === "invalid" ? `${lead} a valid regular expression: ${refusal.message}` : `${lead} a regular expression this gateway runs: ${refusal.message}`;
}

/** The sentence for a failed private check, or undefined when `formatName` is not one. */
export function describeStringCheck(plan: StringCheckPlan, formatName: string): string | undefined {
  if (!formatName.startsWith(slotPrefix)) return undefined;
  const check = plan.checks[Number(formatName.slice(slotPrefix.length))];
  if (check === undefined) return undefined;
  const parts = [
    ...(check.format !== undefined ? [`be a valid ${check.format}`] : []),
    ...(check.pattern !== undefined ? [`match the pattern ${JSON.stringify(check.pattern.source)}`] : []),
  ];
  return `must ${parts.join(" and ")}`;
}

type ActiveValidation = { plan: StringCheckPlan; matchers: Map<number, PatternMatcher>; budget: PatternBudget };

let active: ActiveValidation | undefined;

/**
 * Runs `validate` with the plan's checks in force: `patternProperties` as
 * the `properties` of the names `instance` uses, the private formats bound
 * to this plan. Throws `ValidationBudgetError` when the checks spend `budget`.
 */
export function withStringChecks<T>(plan: StringCheckPlan, instance: unknown, budget: PatternBudget, validate: () => T): T {
  const previous = active;
  active = { plan, matchers: new Map(), budget };
  try {
    if (plan.patternNodes.length > 0) spellOutPatternProperties(plan, instance, budget);
    return validate();
  } finally {
    for (const node of plan.patternNodes) {
      if (node.properties === undefined) delete node.schema.properties;
      else node.schema.properties = node.properties;
    }
    active = previous;
  }
}

function spellOutPatternProperties(plan: StringCheckPlan, instance: unknown, budget: PatternBudget): void {
  const names = propertyNamesIn(instance);
  for (const node of plan.patternNodes) {
    const spelled: Record<string, unknown> = Object.create(null);
    if (isRecord(node.properties)) Object.assign(spelled, node.properties);
    const matchers = node.entries.map((entry) => entry.pattern.matcher());
    for (const name of names) {
      const subschemas: unknown[] = [];
      node.entries.forEach((entry, index) => {
        const result = matchers[index].search(name, budget);
        if (result === "over-budget")
          throw new ValidationBudgetError("The arguments' property names cost more than one call may spend to check against the schema's patternProperties");
        if (result === "match") subschemas.push(entry.subschema);
      });
      if (subschemas.length === 0) continue;
      const existing = Object.hasOwn(spelled, name) ? [spelled[name]] : [];
      const all = [...existing, ...subschemas];
      spelled[name] = all.length === 1 ? all[0] : { allOf: all };
    }
    node.schema.properties = spelled;
  }
}

/** Every distinct property name of every object in `value`. */
function propertyNamesIn(value: unknown): Set<string> {
  const names = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (const item of current) stack.push(item);
    } else if (isRecord(current)) {
      for (const [name, item] of Object.entries(current)) {
        names.add(name);
        stack.push(item);
      }
    }
  }
  return names;
}

function slotName(index: number): string {
  return `${slotPrefix}${index}`;
}

/** The library's format table gets one entry per slot index, shared by every plan: the active validation says what it means. */
function registerSlot(index: number): void {
  const name = slotName(index);
  if (Object.hasOwn(libraryFormats, name)) return;
  libraryFormats[name] = (value: string) => runCheck(index, value);
}

function runCheck(index: number, value: string): boolean {
  // Outside a validation of ours (another user of the library naming this format), the check is not asserted.
  if (active === undefined) return true;
  const check = active.plan.checks[index];
  if (check === undefined) return true;
  if (check.format !== undefined) {
    const result = checkFormat(check.format, value, active.budget);
    if (result === "over-budget") throw new ValidationBudgetError(`The arguments cost more than one call may spend to check the schema's "${check.format}" formats`);
    if (!result) return false;
  }
  if (check.pattern !== undefined) {
    let matcher = active.matchers.get(index);
    if (matcher === undefined) {
      matcher = check.pattern.compiled.matcher();
      active.matchers.set(index, matcher);
    }
    const result = matcher.search(value, active.budget);
    if (result === "over-budget") throw new ValidationBudgetError("The arguments cost more than one call may spend to check against the schema's patterns");
    return result === "match";
  }
  return true;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
