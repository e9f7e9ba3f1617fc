import { describe, expect, it } from "vitest";
import { checkInputSchema } from "../../../src/tools/json-schema/check-input-schema";
import { compileInputSchema } from "../../../src/tools/json-schema/compile-input-schema";
import { validateToolArguments } from "../../../src/tools/engine/validate-tool-arguments";

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra });
const pathsOf = (schema: Record<string, unknown>) => checkInputSchema(schema).map((problem) => problem.path.join("."));
const messageAt = (schema: Record<string, unknown>, path: string) => checkInputSchema(schema).find((problem) => problem.path.join(".") === path)?.message;

describe("schemas that compile", () => {
  it.each([
    ["a plain object", object({ city: { type: "string", pattern: "^[A-Z][a-z]+$" }, days: { type: "integer", minimum: 1 } }, { required: ["city"] })],
    ["a recursive tree through properties", object({ name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } })],
    ["local $defs and $anchor references", object({ a: { $ref: "#/$defs/a" }, b: { $ref: "#bee" } }, { $defs: { a: { type: "string" }, b: { $anchor: "bee", type: "number" } } })],
    ["an $id base with a local reference", object({ a: { $ref: "#/$defs/a" } }, { $id: "https://schemas.example.com/tool", $defs: { a: { type: "string" } } })],
    [
      "draft-07 tuple items and definitions",
      object(
        { pair: { type: "array", items: [{ type: "string" }, { type: "number" }] }, d: { $ref: "#/definitions/d" } },
        { $schema: "http://json-schema.org/draft-07/schema#", definitions: { d: { type: "boolean" } } },
      ),
    ],
    ["draft-04 boolean exclusiveMinimum", object({ n: { type: "number", minimum: 0, exclusiveMinimum: true } }, { $schema: "http://json-schema.org/draft-04/schema#" })],
    ["unknown keywords (as the meta-schema allows)", object({ a: { type: "string", "x-ui": { widget: "text" } } })],
    ["boolean subschemas", object({ anything: true, nothing: false }, { additionalProperties: false })],
    [
      "a mutual recursion that goes into the value",
      object({ a: { $ref: "#/$defs/a" } }, { $defs: { a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } }, b: { type: "array", items: { $ref: "#/$defs/a" } } } }),
    ],
  ])("%s", (_name, schema) => {
    expect(checkInputSchema(schema)).toEqual([]);
  });

  it("compiles once per schema object", () => {
    const schema = object({ a: { type: "string" } });
    const first = compileInputSchema(schema);
    expect(first.ok).toBe(true);
    expect(compileInputSchema(schema)).toBe(first);
  });

  it("leaves the caller's schema as it was", () => {
    const schema = object({ a: { $ref: "#/$defs/a" } }, { $defs: { a: { type: "string" } } });
    const before = structuredClone(schema);
    compileInputSchema(schema);
    expect(schema).toEqual(before);
    expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(["$ref"]);
  });
});

describe("schemas that could never validate, refused with the keyword's path", () => {
  it.each([
    ["an invalid regex pattern", object({ x: { type: "string", pattern: "([" } }), "properties.x.pattern", "Not a valid regular expression"],
    ["a pattern invalid under the u flag", object({ x: { type: "string", pattern: "^[\\w\\_]+$" } }), "properties.x.pattern", "Not a valid regular expression"],
    ["an invalid patternProperties key", object({}, { patternProperties: { "a(": { type: "string" } } }), "patternProperties.a(", "is not a valid regular expression"],
    ["a pattern in propertyNames", object({}, { propertyNames: { pattern: "*" } }), "propertyNames.pattern", "Not a valid regular expression"],
    ['{"$ref": "#"}', { $ref: "#" }, "$ref", "Refers back to the schema's root"],
    ["an allOf that refers to its own schema", object({}, { allOf: [{ $ref: "#" }] }), "allOf.0.$ref", "validation would never end"],
    [
      "two definitions that refer to each other",
      object({ a: { $ref: "#/$defs/a" } }, { $defs: { a: { $ref: "#/$defs/b" }, b: { anyOf: [{ $ref: "#/$defs/a" }] } } }),
      "",
      "validation would never end",
    ],
    ["an unresolved local $ref", object({ a: { $ref: "#/$defs/missing" } }), "properties.a.$ref", "does not point at a schema inside this schema"],
    ["a $ref to a non-schema position", object({ a: { $ref: "#/properties" } }), "properties.a.$ref", "does not point at a schema"],
    ["a remote $ref", object({ a: { $ref: "https://example.com/schemas/a.json" } }), "properties.a.$ref", "remote references are never fetched"],
    ["a relative file $ref", object({ a: { $ref: "other.json#/x" } }), "properties.a.$ref", "remote references are never fetched"],
    ["$dynamicRef", object({ a: { $dynamicRef: "#meta" } }), "properties.a.$dynamicRef", "not supported"],
    ['type "nonsense"', { type: "nonsense" }, "type", 'must be one of "array", "boolean"'],
    ['a property of type "nonsense"', object({ x: { type: "nonsense" } }), "properties.x.type", 'must be one of "array"'],
    ["a type list with repeats", object({ x: { type: ["string", "string"] } }), "properties.x.type", "without repeats"],
    ["properties that is not an object", { type: "object", properties: 5 }, "properties", "must map property names to schemas"],
    ["a property schema that is a number", object({ x: 5 }), "properties.x", "must be a JSON Schema"],
    ["required with a number", object({}, { required: ["a", 1] }), "required.1", "must be an array of property names"],
    ["required that is a string", object({}, { required: "a" }), "required", "must be an array of property names"],
    ["a negative minLength", object({ x: { type: "string", minLength: -1 } }), "properties.x.minLength", "non-negative integer"],
    ["a fractional maxItems", object({ x: { type: "array", maxItems: 1.5 } }), "properties.x.maxItems", "non-negative integer"],
    ["multipleOf zero", object({ x: { type: "number", multipleOf: 0 } }), "properties.x.multipleOf", "greater than 0"],
    ["a tuple as items in draft 2020-12", object({ x: { type: "array", items: [{ type: "string" }] } }), "properties.x.items", "prefixItems"],
    ["a boolean exclusiveMinimum in draft 2020-12", object({ n: { type: "number", exclusiveMinimum: true } }), "properties.n.exclusiveMinimum", "a boolean only in draft 4"],
    ["an empty anyOf", object({ x: { anyOf: [] } }), "properties.x.anyOf", "non-empty array of schemas"],
    ["a schema that is not an object", { type: "string" }, "type", "must describe an object"],
  ])("%s", (_name, schema, path, message) => {
    const problems = checkInputSchema(schema as Record<string, unknown>);
    expect(problems.length).toBeGreaterThan(0);
    if (path !== "") expect(pathsOf(schema as Record<string, unknown>)).toContain(path);
    const found = path === "" ? problems[0].message : messageAt(schema as Record<string, unknown>, path);
    expect(found).toContain(message);
  });

  it("reports every bad place at once", () => {
    expect(pathsOf(object({ a: { type: "nonsense" }, b: { minLength: -1 }, c: 7 }))).toEqual(
      expect.arrayContaining(["properties.a.type", "properties.b.minLength", "properties.c"]),
    );
  });

  it("refuses a listed schema nested deeper than 64 levels without walking it", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 3_000; level += 1) schema = { type: "object", properties: { next: schema } };
    expect(checkInputSchema(schema)).toEqual([{ path: [], message: expect.stringContaining("deeper than 64 levels") }]);
  });
});

describe("validateToolArguments with a schema that never passed the save checks (a stored config)", () => {
  it("reports the schema problem as a tool error instead of throwing", () => {
    expect(validateToolArguments({ $ref: "#" }, {})).toEqual({ ok: false, problems: [expect.stringContaining("the tool's input schema is invalid at $ref")] });
    expect(validateToolArguments(object({ x: { type: "string", pattern: "([" } }), { x: "a" })).toEqual({
      ok: false,
      problems: [expect.stringContaining("at properties.x.pattern: Not a valid regular expression")],
    });
  });
});
