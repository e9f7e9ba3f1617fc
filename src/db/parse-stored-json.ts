/**
 * JSON text an object stored, read back through the schema of what it should
 * be: a row written by an older (or newer) shape, or damaged, comes back as a
 * reason to log, never as a value cast to the wrong type. What to do with
 * such a row (drop it, treat it as a failure, refuse to go on) is the
 * reader's decision; this only says whether it parses, and why not.
 */
import type { z } from "zod";

export type StoredJson<T> = { ok: true; value: T } | { ok: false; reason: string };

export function parseStoredJson<S extends z.ZodType>(schema: S, text: string): StoredJson<z.infer<S>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  return parseStoredValue(schema, raw);
}

/** A value put together from stored columns (some of them JSON already parsed), checked the same way. */
export function parseStoredValue<S extends z.ZodType>(schema: S, raw: unknown): StoredJson<z.infer<S>> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") : "the value";
  return { ok: false, reason: `${where}: ${issue?.message ?? "does not match its schema"}` };
}
