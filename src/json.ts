/**
 * JSON helpers shared by every edge: a parse that refuses `__proto__` keys
 * (the one key that can rewrite an object's prototype when a parsed value is
 * merged with Object.assign or a deep merge), and a byte length for size caps.
 * `constructor` and `prototype` are ordinary names (a tool may well have an
 * argument called `constructor`).
 */
const forbiddenKeys = new Set(["__proto__"]);

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; code: "invalid_json" | "forbidden_key"; message: string };

export function parseJsonSafely(text: string): JsonParseResult {
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

const encoder = new TextEncoder();

export function byteLength(text: string): number {
  return encoder.encode(text).byteLength;
}
