/**
 * JSON Schemas out of an OpenAPI document, for tool input schemas:
 * `$ref`s to `#/components/schemas/X` become `#/$defs/X` (each referenced
 * component copied into `$defs`, with what it refers to in turn), other
 * local `$ref`s are inlined, OpenAPI 3.0's `nullable: true` becomes a type
 * that also allows `null`, and 3.0's boolean `exclusiveMinimum` /
 * `exclusiveMaximum` become numbers. The result is compiled like any other
 * input schema (`checkInputSchema`).
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The value a local JSON pointer (`#/a/b`) names in the document, if any. */
export function resolvePointer(document: Json, pointer: string): unknown {
  if (!pointer.startsWith("#/")) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** Follows `$ref` chains of a parameter, request body or the like (at most 16 hops). */
export function dereference(document: Json, value: unknown): unknown {
  let node = value;
  for (let hops = 0; hops < 16 && isObject(node) && typeof node.$ref === "string"; hops += 1) node = resolvePointer(document, node.$ref);
  return node;
}

const componentPrefix = "#/components/schemas/";

/** Converts one schema; component references it makes are added to `defs` (transitively). */
export class SchemaConverter {
  readonly defs: Json = {};
  readonly #pending: string[] = [];

  constructor(private readonly document: Json) {}

  convert(schema: unknown, depth = 0): unknown {
    if (depth > 64 || !isObject(schema)) return schema;
    if (typeof schema.$ref === "string") {
      if (schema.$ref.startsWith(componentPrefix)) {
        const name = schema.$ref.slice(componentPrefix.length);
        if (!(name in this.defs) && !this.#pending.includes(name)) this.#pending.push(name);
        return { $ref: `#/$defs/${name}` };
      }
      return this.convert(resolvePointer(this.document, schema.$ref) ?? {}, depth + 1);
    }
    const converted: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === "nullable" || key === "discriminator" || key === "xml" || key === "externalDocs") continue;
      if (Array.isArray(value)) converted[key] = value.map((item) => this.convert(item, depth + 1));
      else if (isObject(value))
        converted[key] =
          key === "properties" || key === "patternProperties" || key === "$defs" || key === "definitions" ? this.#convertMap(value, depth) : this.convert(value, depth + 1);
      else converted[key] = value;
    }
    if (schema.nullable === true) {
      if (typeof converted.type === "string") converted.type = [converted.type, "null"];
      else if (Array.isArray(converted.type) && !converted.type.includes("null")) converted.type = [...converted.type, "null"];
    }
    for (const [flag, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      if (typeof converted[flag] === "boolean") {
        if (converted[flag] === true && typeof converted[bound] === "number") {
          converted[flag] = converted[bound];
          delete converted[bound];
        } else delete converted[flag];
      }
    }
    return converted;
  }

  /** Converts every component schema referenced so far (and those they reference). */
  finish(): Json {
    while (this.#pending.length > 0) {
      const name = this.#pending.shift() as string;
      this.defs[name] = {};
      this.defs[name] = this.convert(resolvePointer(this.document, `${componentPrefix}${name}`) ?? {});
    }
    return this.defs;
  }

  #convertMap(map: Json, depth: number): Json {
    return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, this.convert(value, depth + 1)]));
  }
}
