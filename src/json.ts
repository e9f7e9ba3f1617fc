/**
 * JSON helpers shared by every edge: a parse that refuses `__proto__` keys
 * (the one key that can rewrite an object's prototype when a parsed value is
 * merged with Object.assign or a deep merge) and values nested deeper than
 * `maxJsonDepth`, a depth check for values that arrive already parsed, and a
 * byte length for size caps. `constructor` and `prototype` are ordinary
 * names (a tool may well have an argument called `constructor`).
 *
 * Why a depth limit: a value a few thousand levels deep parses, but later
 * recursion over it (comparison, serialisation, schema validation) overflows
 * the stack. Refusing it where it enters keeps every later step safe.
 */
const forbiddenKeys = new Set(["__proto__"]);

/** How deep objects and arrays may nest in anything the gateway accepts: `{}` is depth 1, `{"a":[]}` depth 2. */
export const maxJsonDepth = 64;

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; code: "invalid_json" | "forbidden_key" | "too_deep"; message: string };

export function parseJsonSafely(text: string, options: { maxDepth?: number } = {}): JsonParseResult {
  const maxDepth = options.maxDepth ?? maxJsonDepth;
  // Counted on the text, before parsing, so a hostile depth never reaches JSON.parse's reviver.
  if (jsonTextDepth(text, maxDepth) > maxDepth) return { ok: false, code: "too_deep", message: tooDeepMessage(maxDepth) };
  let forbidden: string | undefined;
  try {
    const value: unknown = JSON.parse(text, (key, value: unknown) => {
      if (forbiddenKeys.has(key)) forbidden ??= key;
      return value;
    });
    if (forbidden) return { ok: false, code: "forbidden_key", message: `The key "${forbidden}" is not allowed in JSON bodies` };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, code: "invalid_json", message: `The body is not valid JSON: ${(error as Error).message}` };
  }
}

/**
 * The nesting depth of JSON text (brackets outside strings), without parsing
 * it; stops counting at `stopAbove + 1`. Text that is not JSON gets a number
 * too; the parse that follows refuses it.
 */
export function jsonTextDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return deepest;
}

/**
 * The nesting depth of a value (0 for a primitive, 1 for `{}` or `[]`),
 * walked without recursion; returns `stopAbove + 1` as soon as it is known to
 * be deeper, so a cyclic value also ends.
 */
export function jsonDepth(value: unknown, stopAbove = maxJsonDepth): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== "object" || item === null) continue;
    if (depth > stopAbove) return stopAbove + 1;
    if (depth > deepest) deepest = depth;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

export type JsonDepthCheck = { ok: true } | { ok: false; message: string };

/**
 * For values that did not come through `parseJsonSafely` (model-produced tool
 * arguments, answers parsed by a library): refuses one nested deeper than
 * `maxDepth`, with a message fit for a tool error.
 */
export function checkJsonDepth(value: unknown, maxDepth = maxJsonDepth): JsonDepthCheck {
  return jsonDepth(value, maxDepth) > maxDepth ? { ok: false, message: tooDeepMessage(maxDepth) } : { ok: true };
}

function tooDeepMessage(maxDepth: number): string {
  return `JSON nested deeper than ${maxDepth} levels (objects and arrays) is not accepted`;
}

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).byteLength;
}

/**
 * Whether `value` serialises to more than `maxBytes` of JSON (about: strings
 * count their characters), found by walking it with an early exit, so a value
 * full of shared references is never serialised to find out.
 */
export function jsonLargerThan(value: unknown, maxBytes: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") size += item.length + 2;
    else if (typeof item === "object" && item !== null) {
      const entries = Array.isArray(item) ? item : Object.entries(item);
      size += 2 + entries.length;
      for (const entry of entries) stack.push(entry);
    } else size += 8;
    if (size > maxBytes) return true;
  }
  return false;
}
