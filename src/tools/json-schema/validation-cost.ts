/**
 * An upper bound on the work `@cfworker/json-schema` does to validate one
 * value, computed before it runs. The library applies every subschema that
 * could apply, every branch of `anyOf`/`oneOf`, and does not remember what it
 * already checked: a schema whose `$ref`s fan out (`anyOf: [{$ref: a},
 * {$ref: a}]`, twenty levels deep) applies a million subschemas to one
 * value, and `uniqueItems` compares every pair of a long array. This pass
 * walks the schema with the value the way the library will, counting as if
 * every applicable subschema applies (`then` and `else` both, every item to
 * `items` and `contains`), but remembers each (subschema, value) pair it has
 * counted, so its own work is at most the number of distinct pairs, which is
 * at most the total. Past `limit` it stops: the value is refused before the
 * library starts.
 */
import type { Schema } from "@cfworker/json-schema";

const over = Symbol("over the limit");

/** Whether validating `instance` against `root` costs at most `limit` units (about one subschema application each). */
export function validationCostWithin(root: Schema | boolean, lookup: Record<string, Schema | boolean>, instance: unknown, limit: number): boolean {
  const counter = new CostCounter(lookup, limit);
  try {
    counter.cost(root, instance);
    return true;
  } catch (error) {
    // A value or a chain of references deep enough to exhaust the stack is refused, as an over-long one is.
    if (error === over || error instanceof RangeError) return false;
    throw error;
  }
}

/**
 * The deepest schema object that alone, applied to one plain value (through
 * `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`), costs more
 * than `limit`: such a schema is refused when it is saved or listed rather
 * than at every call.
 */
export function fanOutProblemPath(nodes: { schema: Record<string, unknown>; path: string[] }[], lookup: Record<string, Schema | boolean>, limit: number): string[] | undefined {
  const counter = new CostCounter(lookup, limit, Infinity);
  const deepestFirst = [...nodes].sort((a, b) => b.path.length - a.path.length);
  for (const node of deepestFirst) {
    try {
      counter.cost(node.schema, null);
    } catch (error) {
      if (error === over || error instanceof RangeError) return node.path;
      throw error;
    }
  }
  return undefined;
}

const inPlaceSingle = ["not", "if", "then", "else"];
const inPlaceArrays = ["allOf", "anyOf", "oneOf"];
const everyItem = ["additionalItems", "contains", "unevaluatedItems"];

class CostCounter {
  readonly #lookup: Record<string, Schema | boolean>;
  readonly #limit: number;
  readonly #workLimit: number;
  readonly #memo = new Map<object, Map<unknown, number>>();
  readonly #sizes = new WeakMap<object, number>();
  #work = 0;

  /** `workLimit`: distinct pairs to count at most (by default `limit`, which the total is at least). */
  constructor(lookup: Record<string, Schema | boolean>, limit: number, workLimit = limit) {
    this.#lookup = lookup;
    this.#limit = limit;
    this.#workLimit = workLimit;
  }

  cost(schema: unknown, instance: unknown): number {
    if (!isRecord(schema)) return 1;
    let byInstance = this.#memo.get(schema);
    if (byInstance === undefined) {
      byInstance = new Map();
      this.#memo.set(schema, byInstance);
    }
    const known = byInstance.get(instance);
    if (known !== undefined) return known;
    if (++this.#work > this.#workLimit) throw over;
    // In-place loops are refused when the schema is compiled; this keeps an unforeseen one finite.
    byInstance.set(instance, this.#limit + 1);
    let total = 1;
    const add = (units: number) => {
      total += units;
      if (total > this.#limit) throw over;
    };
    if (typeof schema.$ref === "string") add(this.cost(this.#lookup[typeof schema.__absolute_ref__ === "string" ? schema.__absolute_ref__ : schema.$ref], instance));
    if (schema.$recursiveRef === "#") add(1 + this.cost(this.#lookup[String(schema.__absolute_recursive_ref__)], instance));
    for (const keyword of inPlaceSingle) if (keyword in schema) add(this.cost(schema[keyword], instance));
    for (const keyword of inPlaceArrays) {
      const options = schema[keyword];
      if (Array.isArray(options)) for (const option of options) add(this.cost(option, instance));
    }
    if (Array.isArray(schema.enum)) add(schema.enum.length * (1 + Math.min(this.size(instance), this.size(schema.enum))));
    if ("const" in schema) add(Math.min(this.size(instance), this.size(schema.const)));
    if (typeof instance === "string") add(Math.ceil(instance.length / 8));
    else if (Array.isArray(instance)) this.arrayCost(schema, instance, add);
    else if (isRecord(instance)) this.objectCost(schema, instance, add);
    byInstance.set(instance, total);
    return total;
  }

  arrayCost(schema: Record<string, unknown>, items: unknown[], add: (units: number) => void): void {
    add(items.length);
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    tuple.forEach((subschema, index) => {
      if (index < items.length) add(this.cost(subschema, items[index]));
    });
    const applyToAll = [...everyItem, ...(Array.isArray(schema.items) ? [] : ["items"])];
    for (const keyword of applyToAll) if (keyword in schema) for (const item of items) add(this.cost(schema[keyword], item));
    // Every pair is compared, each comparison at most as deep as the smaller item.
    if (schema.uniqueItems === true) add((items.length * (items.length - 1)) / 2 + items.length * this.size(items));
  }

  objectCost(schema: Record<string, unknown>, object: Record<string, unknown>, add: (units: number) => void): void {
    const names = Object.keys(object);
    add(names.length);
    if (Array.isArray(schema.required)) add(schema.required.length);
    if (schema.dependentRequired !== undefined) add(this.size(schema.dependentRequired));
    if ("propertyNames" in schema) for (const name of names) add(this.cost(schema.propertyNames, name));
    for (const keyword of ["dependentSchemas", "dependencies"]) {
      const map = schema[keyword];
      if (!isRecord(map)) continue;
      for (const [name, dependent] of Object.entries(map)) {
        if (!Object.hasOwn(object, name)) continue;
        add(Array.isArray(dependent) ? dependent.length : this.cost(dependent, object));
      }
    }
    if (isRecord(schema.properties)) {
      const properties = schema.properties;
      add(Object.keys(properties).length);
      for (const name of names) if (Object.hasOwn(properties, name)) add(this.cost(properties[name], object[name]));
    }
    for (const keyword of ["additionalProperties", "unevaluatedProperties"]) {
      if (keyword in schema) for (const name of names) add(this.cost(schema[keyword], object[name]));
    }
  }

  /** JSON nodes in `value` (1 for a primitive), remembered per object and capped past the limit. */
  size(value: unknown): number {
    if (typeof value !== "object" || value === null) return 1;
    const known = this.#sizes.get(value);
    if (known !== undefined) return known;
    let total = 1;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      total += this.size(child);
      if (total > this.#limit) break;
    }
    this.#sizes.set(value, total);
    return total;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
