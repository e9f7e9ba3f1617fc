/**
 * What a schema's shape cannot tell: whether every `$ref` lands on a schema
 * inside it, and whether `$ref`s form
 * a loop that never goes into the value (`{"$ref": "#"}`, or an `allOf` that
 * refers back to its own schema), on which validation would recurse until the
 * stack overflows. Works on a schema already passed through cfworker's
 * `dereference`, which records each `$ref`'s absolute URI.
 */
import type { Schema } from "@cfworker/json-schema";
import type { SchemaProblem } from "./compile-input-schema";
import { pointerSegments } from "./pointer-segments";

/** A schema object inside a schema, and where: its path of keywords and names. */
export type SchemaNode = { schema: Record<string, unknown>; path: string[] };
type Node = SchemaNode;

/** Keywords whose value is one schema, an array of schemas, or a map of schemas. */
const singleSchema = [
  "additionalItems",
  "unevaluatedItems",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
];
const schemaArrays = ["prefixItems", "items", "allOf", "anyOf", "oneOf"];
const schemaMaps = ["$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies"];
/** Keywords that apply their schemas to the same value (no step into it): a loop through them never ends. */
const inPlaceSingle = ["not", "if", "then", "else"];
const inPlaceArrays = ["allOf", "anyOf", "oneOf"];
const inPlaceMaps = ["dependentSchemas", "dependencies"];

export function schemaReferenceProblems(root: Schema, lookup: Record<string, Schema | boolean>): SchemaProblem[] {
  const nodes = collectNodes(root);
  const problems: SchemaProblem[] = [];
  for (const { schema, path } of nodes) {
    if (typeof schema.$ref === "string" && lookup[absoluteRef(schema)] === undefined) {
      problems.push({ path: [...path, "$ref"], message: unresolvedMessage(schema.$ref, absoluteRef(schema), lookup) });
    }
    if (schema.$dynamicRef !== undefined) {
      problems.push({ path: [...path, "$dynamicRef"], message: "$dynamicRef is not supported here; use $ref" });
    }
    if (schema.$recursiveRef !== undefined && schema.$recursiveRef !== "#") {
      problems.push({ path: [...path, "$recursiveRef"], message: '$recursiveRef must be "#"' });
    }
  }
  if (problems.length > 0) return problems;
  return loopProblems(nodes, lookup);
}

/**
 * Every schema object inside `root` (subschemas of every applicator), with its
 * path; with `lookup`, also every object a `$ref` can land on (a pointer may
 * name one under any keyword, `#/x-anything`), so that nothing the validator
 * can apply is left unchecked.
 */
export function collectNodes(root: Schema, lookup: Record<string, Schema | boolean> = {}): Node[] {
  const nodes: Node[] = [];
  const seen = new Set<object>();
  const stack: { value: unknown; path: string[] }[] = [{ value: root, path: [] }];
  // Pushed first, popped last: a node reachable from the root keeps its path from the root.
  for (const [uri, target] of Object.entries(lookup)) {
    const fragment = uri.includes("#") ? uri.slice(uri.indexOf("#")) : "";
    stack.unshift({ value: target, path: fragment.startsWith("#/") ? pointerSegments(fragment) : [uri] });
  }
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string[] };
    if (!isRecord(value) || seen.has(value)) continue;
    seen.add(value);
    nodes.push({ schema: value, path });
    for (const keyword of singleSchema) if (isRecord(value[keyword])) stack.push({ value: value[keyword], path: [...path, keyword] });
    for (const keyword of schemaArrays) {
      const items = value[keyword];
      if (Array.isArray(items)) for (const [index, item] of items.entries()) stack.push({ value: item, path: [...path, keyword, String(index)] });
    }
    for (const keyword of schemaMaps) {
      const map = value[keyword];
      if (isRecord(map)) for (const [name, item] of Object.entries(map)) stack.push({ value: item, path: [...path, keyword, name] });
    }
  }
  return nodes;
}

/** Finds a loop of in-place applications (`$ref`, allOf/anyOf/oneOf, not, if/then/else, dependent schemas). */
function loopProblems(nodes: Node[], lookup: Record<string, Schema | boolean>): SchemaProblem[] {
  const pathOf = new Map<object, string[]>(nodes.map((node) => [node.schema, node.path]));
  const edges = (schema: Record<string, unknown>): { target: unknown; via: string[] }[] => {
    const found: { target: unknown; via: string[] }[] = [];
    if (typeof schema.$ref === "string") found.push({ target: lookup[absoluteRef(schema)], via: ["$ref"] });
    if (schema.$recursiveRef === "#") found.push({ target: lookup[String(schema.__absolute_recursive_ref__)], via: ["$recursiveRef"] });
    for (const keyword of inPlaceSingle) found.push({ target: schema[keyword], via: [keyword] });
    for (const keyword of inPlaceArrays) {
      const items = schema[keyword];
      if (Array.isArray(items)) for (const [index, item] of items.entries()) found.push({ target: item, via: [keyword, String(index)] });
    }
    for (const keyword of inPlaceMaps) {
      const map = schema[keyword];
      if (isRecord(map)) for (const [name, item] of Object.entries(map)) found.push({ target: item, via: [keyword, name] });
    }
    return found.filter((edge) => isRecord(edge.target));
  };

  const state = new Map<object, "open" | "done">();
  for (const start of nodes) {
    if (state.has(start.schema)) continue;
    // Iterative depth-first search: a schema that reaches an "open" one closes a loop.
    const stack: { schema: Record<string, unknown>; pending: { target: unknown; via: string[] }[] }[] = [{ schema: start.schema, pending: edges(start.schema) }];
    state.set(start.schema, "open");
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const edge = top.pending.pop();
      if (edge === undefined) {
        state.set(top.schema, "done");
        stack.pop();
        continue;
      }
      const target = edge.target as Record<string, unknown>;
      const seen = state.get(target);
      if (seen === "open") {
        const where = [...(pathOf.get(top.schema) ?? []), ...edge.via];
        const targetPath = pathOf.get(target) ?? [];
        return [
          {
            path: where,
            message: `Refers back to ${targetPath.length === 0 ? "the schema's root" : `"#/${targetPath.join("/")}"`} without going into the value: validation would never end`,
          },
        ];
      }
      if (seen === undefined) {
        state.set(target, "open");
        stack.push({ schema: target, pending: edges(target) });
      }
    }
  }
  return [];
}

function absoluteRef(schema: Record<string, unknown>): string {
  return typeof schema.__absolute_ref__ === "string" ? schema.__absolute_ref__ : String(schema.$ref);
}

function unresolvedMessage(reference: string, absolute: string, lookup: Record<string, Schema | boolean>): string {
  const document = absolute.split("#")[0];
  const known = Object.keys(lookup).some((uri) => uri.split("#")[0] === document);
  return known
    ? `$ref "${reference}" does not point at a schema inside this schema`
    : `$ref "${reference}" points outside this schema; remote references are never fetched (use #/$defs/… inside the schema)`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
