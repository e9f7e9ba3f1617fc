/**
 * The JSON Schema meta-schema a tool's input schema is checked against, per
 * draft. It follows the official meta-schemas of drafts 4, 6/7, 2019-09 and
 * 2020-12 keyword by keyword (the shape each keyword's value must have),
 * written as one self-referencing schema because the official 2019-09 and
 * 2020-12 ones are split into vocabularies joined by `$dynamicRef`, which
 * `@cfworker/json-schema` does not follow. Unknown keywords stay allowed, as
 * in the official ones. Each keyword also has the sentence a 400 uses when its
 * value has the wrong shape.
 */
import type { Schema, SchemaDraft } from "@cfworker/json-schema";

const typeNames = ["array", "boolean", "integer", "null", "number", "object", "string"];

const subschema = { $ref: "#" };
const schemaArray = { type: "array", minItems: 1, items: subschema };
const schemaMap = { type: "object", additionalProperties: subschema };
const nonNegativeInteger = { type: "integer", minimum: 0 };
const string = { type: "string" };
const boolean = { type: "boolean" };
const stringArray = (minItems: number) => ({ type: "array", items: string, uniqueItems: true, minItems });

/** What each keyword's value must be, as the end of "`keyword` …". */
export const keywordExpectations: Record<string, string> = {
  type: `must be one of ${typeNames.map((name) => `"${name}"`).join(", ")}, or an array of them without repeats`,
  enum: "must be an array of the allowed values",
  multipleOf: "must be a number greater than 0",
  maximum: "must be a number",
  minimum: "must be a number",
  exclusiveMaximum: "must be a number (a boolean only in draft 4)",
  exclusiveMinimum: "must be a number (a boolean only in draft 4)",
  maxLength: "must be a non-negative integer",
  minLength: "must be a non-negative integer",
  maxItems: "must be a non-negative integer",
  minItems: "must be a non-negative integer",
  maxProperties: "must be a non-negative integer",
  minProperties: "must be a non-negative integer",
  maxContains: "must be a non-negative integer",
  minContains: "must be a non-negative integer",
  uniqueItems: "must be true or false",
  pattern: "must be a regular expression (a string)",
  format: "must be a string",
  required: "must be an array of property names (strings, no repeats)",
  dependentRequired: "must map property names to arrays of property names",
  dependencies: "must map property names to schemas or arrays of property names",
  properties: "must map property names to schemas",
  patternProperties: "must map regular expressions to schemas",
  dependentSchemas: "must map property names to schemas",
  $defs: "must map names to schemas",
  definitions: "must map names to schemas",
  items: "must be a schema (in draft 2020-12 a tuple is prefixItems; an array of schemas is draft 2019-09 and older)",
  prefixItems: "must be a non-empty array of schemas",
  allOf: "must be a non-empty array of schemas",
  anyOf: "must be a non-empty array of schemas",
  oneOf: "must be a non-empty array of schemas",
  $id: "must be a string (a URI reference)",
  $ref: "must be a string (a URI reference such as #/$defs/name)",
  $schema: "must be a string (the URI of a draft)",
  $anchor: "must be a string",
  $comment: "must be a string",
  title: "must be a string",
  description: "must be a string",
  examples: "must be an array",
  deprecated: "must be true or false",
  readOnly: "must be true or false",
  writeOnly: "must be true or false",
  contentMediaType: "must be a string",
  contentEncoding: "must be a string",
  $recursiveRef: "must be a string",
  $recursiveAnchor: "must be true or false",
  $dynamicRef: "must be a string",
  $dynamicAnchor: "must be a string",
  $vocabulary: "must be an object",
};

const metaSchemas = new Map<SchemaDraft, Schema>();

/** The meta-schema for `draft`, built once per isolate. */
export function metaSchemaFor(draft: SchemaDraft): Schema {
  let meta = metaSchemas.get(draft);
  if (meta === undefined) {
    meta = buildMetaSchema(draft);
    metaSchemas.set(draft, meta);
  }
  return meta;
}

function buildMetaSchema(draft: SchemaDraft): Schema {
  const draft4 = draft === "4";
  const exclusiveBound = draft4 ? boolean : { type: "number" };
  const properties: Record<string, unknown> = {
    $id: string,
    $schema: string,
    $ref: string,
    $anchor: string,
    $comment: string,
    $recursiveRef: string,
    $recursiveAnchor: boolean,
    $dynamicRef: string,
    $dynamicAnchor: string,
    $vocabulary: { type: "object" },
    $defs: schemaMap,
    definitions: schemaMap,
    title: string,
    description: string,
    deprecated: boolean,
    readOnly: boolean,
    writeOnly: boolean,
    examples: { type: "array" },
    type: { anyOf: [{ enum: typeNames }, { type: "array", items: { enum: typeNames }, minItems: 1, uniqueItems: true }] },
    enum: { type: "array", minItems: draft4 ? 1 : 0 },
    multipleOf: { type: "number", exclusiveMinimum: 0 },
    maximum: { type: "number" },
    minimum: { type: "number" },
    exclusiveMaximum: exclusiveBound,
    exclusiveMinimum: exclusiveBound,
    maxLength: nonNegativeInteger,
    minLength: nonNegativeInteger,
    maxItems: nonNegativeInteger,
    minItems: nonNegativeInteger,
    maxProperties: nonNegativeInteger,
    minProperties: nonNegativeInteger,
    maxContains: nonNegativeInteger,
    minContains: nonNegativeInteger,
    uniqueItems: boolean,
    pattern: string,
    format: string,
    contentMediaType: string,
    contentEncoding: string,
    contentSchema: subschema,
    required: stringArray(draft4 ? 1 : 0),
    dependentRequired: { type: "object", additionalProperties: stringArray(0) },
    dependencies: { type: "object", additionalProperties: { anyOf: [subschema, stringArray(0)] } },
    properties: schemaMap,
    patternProperties: schemaMap,
    dependentSchemas: schemaMap,
    additionalProperties: subschema,
    unevaluatedProperties: subschema,
    propertyNames: subschema,
    items: draft === "2020-12" ? subschema : { anyOf: [subschema, schemaArray] },
    prefixItems: schemaArray,
    additionalItems: subschema,
    unevaluatedItems: subschema,
    contains: subschema,
    allOf: schemaArray,
    anyOf: schemaArray,
    oneOf: schemaArray,
    not: subschema,
    if: subschema,
    then: subschema,
    else: subschema,
  };
  // A deep copy: the validator annotates schema objects, and these constants are shared between keywords.
  return structuredClone({ type: ["object", "boolean"], properties }) as Schema;
}
