/**
 * Compiles a tool's input schema once, refusing schemas that could never
 * validate anything: the wrong shape for a keyword (checked against the
 * meta-schema of its draft), a `pattern` or `patternProperties` key that is
 * not a regular expression the linear-time engine runs (`string-checks.ts`:
 * no backreferences, no lookaround), a `$ref` that does not resolve inside
 * the schema (remote references are never fetched), `$ref`s that loop back
 * to themselves without going into the value (validation would recurse
 * forever), and schemas whose subschemas fan out so far that checking even
 * an empty object costs more than a call may spend (`safe-validator.ts`).
 * Uses `@cfworker/json-schema`: no `eval`, so it runs on Workers. Results
 * are cached per schema object and per schema text (a bounded number), so
 * reading a stored config again is cheap.
 */
import { dereference, Validator } from "@cfworker/json-schema";
import type { OutputUnit, Schema, SchemaDraft } from "@cfworker/json-schema";
import { keywordExpectations, metaSchemaFor } from "./meta-schema";
import { decodeSegment, pointerSegments } from "./pointer-segments";
import { maxValidationUnits, SafeValidator } from "./safe-validator";
import { collectNodes, schemaReferenceProblems } from "./schema-reference-problems";
import { planStringChecks } from "./string-checks";
import { fanOutProblemPath } from "./validation-cost";

/** A problem in a schema: `path` is the keyword's place in it, e.g. `["properties", "x", "pattern"]`. */
export type SchemaProblem = { path: string[]; message: string };

export { pointerSegments };

export type CompiledSchema = { ok: true; validator: SafeValidator } | { ok: false; problems: SchemaProblem[] };

/** By object (the same config object) and by text (a stored config is parsed afresh on every read). */
const compiledByObject = new WeakMap<object, CompiledSchema>();
const compiledByText = new Map<string, CompiledSchema>();
const maxCompiledByText = 1_000;
const metaValidators = new Map<SchemaDraft, Validator>();

/** Draft 2020-12 unless the schema's `$schema` names another one. */
export function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-04")) return "4";
  if (declared.includes("draft-06") || declared.includes("draft-07")) return "7";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** The schema's validator, or every problem that keeps it from being one. Never throws. */
export function compileInputSchema(schema: Record<string, unknown>): CompiledSchema {
  const cached = compiledByObject.get(schema);
  if (cached !== undefined) return cached;
  const text = JSON.stringify(schema);
  let result = compiledByText.get(text);
  if (result === undefined) {
    result = compile(schema);
    if (compiledByText.size >= maxCompiledByText) compiledByText.delete(compiledByText.keys().next().value as string);
    compiledByText.set(text, result);
  }
  compiledByObject.set(schema, result);
  return result;
}

function compile(schema: Record<string, unknown>): CompiledSchema {
  const draft = draftOf(schema);
  const shapeProblems = metaSchemaProblems(schema, draft);
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems };
  // The validator annotates the objects it is given; keep the caller's config as it was.
  const copy = structuredClone(schema) as Schema;
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(copy);
  } catch (error) {
    return { ok: false, problems: [{ path: [], message: `The schema's identifiers ($id) cannot be resolved: ${firstLine(error)}` }] };
  }
  const referenceProblems = schemaReferenceProblems(copy, lookup);
  // Patterns are compiled (and the copy rewritten for the validator) only once the references are sound.
  const nodes = collectNodes(copy, lookup);
  const strings = referenceProblems.length > 0 ? undefined : planStringChecks(nodes);
  if (strings !== undefined && !strings.ok) return { ok: false, problems: strings.problems };
  if (strings === undefined) return { ok: false, problems: referenceProblems };
  const fanOut = fanOutProblemPath(nodes, lookup, maxValidationUnits);
  if (fanOut !== undefined) {
    return {
      ok: false,
      problems: [
        {
          path: fanOut,
          message: `Applies more than ${maxValidationUnits} subschemas to one value (through $ref, allOf, anyOf, oneOf, not, if/then/else): validation would take too long`,
        },
      ],
    };
  }
  try {
    const validator = new SafeValidator(copy, draft, lookup, strings.plan);
    // One trial run: whatever the static checks missed throws here, not at the first call.
    validator.validate({});
    return { ok: true, validator };
  } catch (error) {
    return { ok: false, problems: [{ path: [], message: `The schema cannot be applied: ${firstLine(error)}` }] };
  }
}

function metaSchemaProblems(schema: Record<string, unknown>, draft: SchemaDraft): SchemaProblem[] {
  let meta = metaValidators.get(draft);
  if (meta === undefined) {
    meta = new Validator(metaSchemaFor(draft), "2019-09", false);
    metaValidators.set(draft, meta);
  }
  const result = meta.validate(schema);
  if (result.valid) return [];
  // One line per place, from the deepest errors (the outer ones only say "a subschema had errors").
  const leaves = result.errors.filter((error) => !result.errors.some((other) => other !== error && other.instanceLocation.startsWith(`${error.instanceLocation}/`)));
  const byPlace = new Map<string, SchemaProblem>();
  for (const error of leaves) {
    if (!byPlace.has(error.instanceLocation)) byPlace.set(error.instanceLocation, { path: pointerSegments(error.instanceLocation), message: describeShapeError(error, leaves) });
  }
  return [...byPlace.values()];
}

/**
 * The sentence for one bad place: the expectation of the keyword whose value
 * it is (the last meta-schema `properties/<keyword>` the error passed
 * through), or, for a place that had to be a schema, that it must be one.
 */
function describeShapeError(error: OutputUnit, leaves: OutputUnit[]): string {
  const keyword = [...error.keywordLocation.matchAll(/\/properties\/([^/]+)/g)].map((match) => decodeSegment(match[1])).at(-1);
  const expectation = keyword === undefined ? undefined : keywordExpectations[keyword];
  const place = pointerSegments(error.instanceLocation).at(-1);
  if (expectation !== undefined && place === keyword) return expectation;
  const samePlace = leaves.filter((other) => other.instanceLocation === error.instanceLocation);
  if (samePlace.some((other) => other.keyword === "type" && /Expected "object", "boolean"/.test(other.error))) {
    return "must be a JSON Schema (an object, or true or false)";
  }
  return expectation ?? error.error.replace(/\.$/, "");
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0].trim();
}
