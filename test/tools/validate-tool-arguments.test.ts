import { describe, expect, it } from "vitest";
import { formatArgumentError, validateToolArguments } from "../../src/tools/engine/validate-tool-arguments";

const weatherSchema = {
  type: "object",
  properties: {
    city: { type: "string", minLength: 2 },
    days: { type: "integer", minimum: 1, maximum: 14 },
    units: { enum: ["metric", "imperial"] },
    tags: { type: "array", items: { type: "string" }, maxItems: 3 },
    code: { type: "string", pattern: "^[A-Z]{3}$" },
  },
  required: ["city"],
  additionalProperties: false,
};

describe("validateToolArguments", () => {
  it("accepts arguments that match the schema", () => {
    expect(validateToolArguments(weatherSchema, { city: "Oslo", days: 3, units: "metric" })).toEqual({ ok: true });
  });

  it("names the property and what was expected", () => {
    expect(validateToolArguments(weatherSchema, { city: 42 })).toEqual({ ok: false, problems: ["/city: must be string"] });
  });

  it("points a missing required property at its own path", () => {
    expect(validateToolArguments(weatherSchema, {})).toEqual({ ok: false, problems: ["/city: is required"] });
  });

  it("reports every problem, without the wrapper noise", () => {
    const result = validateToolArguments(weatherSchema, {
      city: "X",
      days: 0,
      units: "kelvin",
      tags: ["a", 2, "c", "d"],
      code: "oslo",
      extra: true,
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        "/city: must have at least 2 characters",
        "/days: must be >= 1",
        '/units: must be one of ["metric","imperial"]',
        "/tags: must have at most 3 items",
        "/tags/1: must be string",
        '/code: must match the pattern "^[A-Z]{3}$"',
        "/extra: is not allowed",
      ],
    });
  });

  it("reports a wrong root type at the root", () => {
    expect(validateToolArguments(weatherSchema, "Oslo")).toEqual({ ok: false, problems: ["/: must be object"] });
    expect(validateToolArguments(weatherSchema, undefined)).toMatchObject({ ok: false });
  });

  it("says which alternative each anyOf problem belongs to", () => {
    const schema = { type: "object", anyOf: [{ required: ["email"] }, { required: ["phone"] }] };
    expect(validateToolArguments(schema, {})).toEqual({
      ok: false,
      problems: ["/: must match at least one of the anyOf options", "/email: is required (anyOf option 1)", "/phone: is required (anyOf option 2)"],
    });
  });

  it("follows local $refs and honours a draft-07 $schema", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { zip: { type: "string", pattern: "^\\d{5}$" } },
      properties: { zip: { $ref: "#/definitions/zip" } },
    };
    expect(validateToolArguments(schema, { zip: "12345" })).toEqual({ ok: true });
    expect(validateToolArguments(schema, { zip: "abc" })).toEqual({ ok: false, problems: ['/zip: must match the pattern "^\\\\d{5}$"'] });
  });

  it("decodes unusual property names in locations", () => {
    const schema = { type: "object", properties: { "café au lait": { type: "number" } } };
    expect(validateToolArguments(schema, { "café au lait": "hot" })).toEqual({ ok: false, problems: ["/café au lait: must be number"] });
  });

  it("reuses the compiled validator for the same schema object", () => {
    const schema = { type: "object", properties: { n: { type: "number" } } };
    for (let index = 0; index < 3; index++) expect(validateToolArguments(schema, { n: index })).toEqual({ ok: true });
    expect(validateToolArguments(schema, { n: "x" })).toEqual({ ok: false, problems: ["/n: must be number"] });
  });

  it("turns an unusable schema into a problem instead of a throw", () => {
    const schema = { type: "object", properties: { a: { $ref: "#/$defs/missing" } } };
    expect(validateToolArguments(schema, { a: 1 })).toEqual({
      ok: false,
      problems: ['the tool\'s input schema is invalid at properties.a.$ref: $ref "#/$defs/missing" does not point at a schema inside this schema'],
    });
    const badPattern = { type: "object", properties: { a: { type: "string", pattern: "(" } } };
    expect(validateToolArguments(badPattern, { a: "x" })).toMatchObject({ ok: false });
  });

  it("caps a flood of problems", () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`p${index}`, { type: "string" }]));
    const args = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`p${index}`, index]));
    const result = validateToolArguments({ type: "object", properties }, args);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems).toHaveLength(21);
      expect(result.problems.at(-1)).toBe("…and 10 more problems");
    }
  });
});

describe("formatArgumentError", () => {
  it("tells the model what to fix", () => {
    expect(formatArgumentError("get_weather", ["/city: must be string", "/days: must be >= 1"])).toBe(
      'Invalid arguments for tool "get_weather": /city: must be string; /days: must be >= 1. Fix the arguments and call the tool again.',
    );
  });
});
