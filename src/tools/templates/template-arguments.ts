/**
 * The `{{param}}` placeholder syntax shared by the gateway's URL, header and
 * body templates, and how an argument is looked up and turned into text.
 */
export const placeholderPattern = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** `${env.NAME}`: a Worker secret in a header value (headers only; see the secret policy). */
export const secretReferencePattern = /\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Matches a template that is exactly one placeholder, e.g. `"{{amount}}"`. */
export const wholePlaceholderPattern = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/;

export type ArgumentLookup = { found: true; value: unknown } | { found: false };

/** Own properties only, so `{{constructor}}` never reaches `Object.prototype`. */
export function lookupArgument(args: unknown, name: string): ArgumentLookup {
  if (typeof args !== "object" || args === null || Array.isArray(args) || !Object.hasOwn(args, name)) return { found: false };
  const value = (args as Record<string, unknown>)[name];
  return value === undefined ? { found: false } : { found: true, value };
}

/** Strings as they are, numbers and booleans as written, anything else as JSON. */
export function argumentText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value) ?? "";
}
