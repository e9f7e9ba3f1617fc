/**
 * What a client sends is not what it gets back: a field with a default may be
 * left out of a request (the gateway fills it in), while every answer has it.
 * openapi-typescript types a shared component one way only, with defaulted
 * fields required (right for answers, wrong for the request bodies that
 * share the component). So before generating, every component a request body
 * reaches that has a default somewhere in it (or reaches one that has) gets
 * an `…Input` copy, and the request bodies point at the copies; the copies
 * mark their defaulted fields optional (`x-input-optional`, read by
 * `inputOptionalProperty`). The answers keep the original components.
 * Only the generated types change: client/openapi.json stays what the Worker serves.
 */

const schemaRefPrefix = "#/components/schemas/";
/** Keys whose values are data, not schemas: nothing in them is walked. */
const dataKeys = new Set(["default", "enum", "const", "examples", "example"]);
/** Keys whose values map names to schemas. */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
export const inputSuffix = "Input";

/** The document with `…Input` copies for the request side, and the names of the components copied. */
export function withInputSchemas(document) {
  const copy = structuredClone(document);
  const schemas = copy.components?.schemas ?? {};
  const requestRoots = requestBodySchemas(copy);
  const reached = reachable(
    requestRoots.flatMap((schema) => refsIn(schema)),
    schemas,
  );
  const differs = new Set([...reached].filter((name) => hasDefault(schemas[name])));
  // A component that reaches one that differs differs too (its copy must point at the copy).
  for (let grew = true; grew; ) {
    grew = false;
    for (const name of reached) {
      if (!differs.has(name) && refsIn(schemas[name]).some((ref) => differs.has(ref))) {
        differs.add(name);
        grew = true;
      }
    }
  }
  const names = [...differs].sort();
  for (const name of names) {
    const inputName = `${name}${inputSuffix}`;
    if (schemas[inputName]) throw new Error(`client/openapi.json already has a schema named ${inputName}: the request-side copy of ${name} needs that name`);
    schemas[inputName] = markInputOptional(pointAtCopies(structuredClone(schemas[name]), differs));
  }
  for (const schema of requestRoots) pointAtCopies(schema, differs);
  return { document: copy, copied: names };
}

/**
 * openapi-typescript's `transformProperty` hook: a property the copies marked
 * (a field with a default that the object does not require) becomes optional.
 */
export function inputOptionalProperty(ts) {
  return (property, schemaObject) => {
    if (!schemaObject || typeof schemaObject !== "object" || schemaObject["x-input-optional"] !== true || property.questionToken) return undefined;
    return ts.factory.updatePropertySignature(property, property.modifiers, property.name, ts.factory.createToken(ts.SyntaxKind.QuestionToken), property.type);
  };
}

/** The schema objects of every request body (`paths.*.*.requestBody.content.*.schema`). */
function requestBodySchemas(document) {
  const found = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      const content = operation && typeof operation === "object" ? operation.requestBody?.content : undefined;
      for (const media of Object.values(content ?? {})) if (media?.schema) found.push(media.schema);
    }
  }
  return found;
}

function reachable(start, schemas) {
  const seen = new Set();
  const queue = [...start];
  while (queue.length > 0) {
    const name = queue.pop();
    if (seen.has(name)) continue;
    if (!schemas[name]) throw new Error(`client/openapi.json refers to a schema it does not have: ${name}`);
    seen.add(name);
    queue.push(...refsIn(schemas[name]));
  }
  return seen;
}

/**
 * The schemas directly inside a schema node (or an array of them). Values
 * that are data (`default`, `enum`…) are skipped; maps of named schemas
 * (`properties`…) give their values, whatever the names (a property may be
 * called `default`).
 */
function children(node) {
  if (Array.isArray(node)) return node;
  if (!node || typeof node !== "object") return [];
  const found = [];
  for (const [key, value] of Object.entries(node)) {
    if (dataKeys.has(key)) continue;
    if (schemaMaps.has(key) && value && typeof value === "object" && !Array.isArray(value)) found.push(...Object.values(value));
    else if (value && typeof value === "object") found.push(value);
  }
  return found;
}

function ownRef(node) {
  return node && typeof node === "object" && !Array.isArray(node) && typeof node.$ref === "string" && node.$ref.startsWith(schemaRefPrefix)
    ? node.$ref.slice(schemaRefPrefix.length)
    : undefined;
}

/** The component names a schema refers to (not following them). */
function refsIn(node, found = []) {
  const ref = ownRef(node);
  if (ref !== undefined) found.push(ref);
  for (const child of children(node)) refsIn(child, found);
  return found;
}

/** Whether a `default` appears anywhere in the schema itself (not behind a `$ref`). */
function hasDefault(node) {
  if (node && typeof node === "object" && !Array.isArray(node) && node.default !== undefined) return true;
  return children(node).some(hasDefault);
}

/** Rewrites, in place, each `$ref` to a component that differs so it names that component's copy. */
function pointAtCopies(node, differs) {
  const ref = ownRef(node);
  if (ref !== undefined && differs.has(ref)) node.$ref = `${schemaRefPrefix}${ref}${inputSuffix}`;
  for (const child of children(node)) pointAtCopies(child, differs);
  return node;
}

/** Marks, in place, every property with a default that its object does not require. */
function markInputOptional(node) {
  if (node && typeof node === "object" && !Array.isArray(node) && node.properties && typeof node.properties === "object") {
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    for (const [name, property] of Object.entries(node.properties)) {
      if (property && typeof property === "object" && property.default !== undefined && !required.has(name)) property["x-input-optional"] = true;
    }
  }
  for (const child of children(node)) markInputOptional(child);
  return node;
}
