/**
 * The agent object's small typed state values (the `state` table: the active
 * run, the scripted model's place, the cycle budget, the consciousness…),
 * read back parsed with their schema. The object is the table's only writer,
 * and a cycle reads the same few keys many times (its active run above all),
 * so each value's stored text is read from SQLite once and kept; values over
 * `keptTextMax` characters (the consciousness, read once a cycle) are not
 * kept, so an idle object holds little. `forget` drops what is kept (a
 * rolled-back transaction).
 */
import type { z } from "zod";
import { parseStoredJson } from "../db/parse-stored-json";

/** State values longer than this (in characters) are read from SQLite each time instead of kept in memory. */
const keptTextMax = 16_384;

export class StateValues {
  /** Each key's stored text (`null`: no row). */
  readonly #text = new Map<string, string | null>();
  /** The value last parsed from each key's text, with the schema that parsed it. */
  readonly #parsed = new Map<string, { text: string; schema: z.ZodType; parsed: { data: unknown } | undefined }>();

  constructor(private readonly sql: SqlStorage) {}

  /** A value, parsed with its schema; a value that does not parse is treated as absent (and logged). */
  read<S extends z.ZodType>(key: string, schema: S): z.infer<S> | undefined {
    let text = this.#text.get(key);
    if (text === undefined) {
      text = this.sql.exec<{ value: string }>("SELECT value FROM state WHERE key = ?", key).toArray()[0]?.value ?? null;
      this.#keep(key, text);
    }
    if (text === null) return undefined;
    const memo = this.#parsed.get(key);
    const seen = memo?.text === text && memo.schema === schema;
    // A copy each time: callers change what they read before they write it back. (`seen`: parsed by this very schema, so the type holds.)
    if (seen && memo.parsed) return structuredClone(memo.parsed.data) as z.infer<S>;
    const parsed = parseStoredJson(schema, text);
    if (parsed.ok) {
      // Kept from the second read of the same text on: a value read once (and then rewritten) is not copied.
      if (text.length <= keptTextMax) this.#parsed.set(key, { text, schema, parsed: seen ? { data: structuredClone(parsed.value) } : undefined });
      return parsed.value;
    }
    console.error("unreadable agent state", key, parsed.reason);
    return undefined;
  }

  write(key: string, value: unknown): void {
    const text = JSON.stringify(value);
    this.sql.exec("INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, text);
    this.#keep(key, text);
  }

  delete(key: string): void {
    this.sql.exec("DELETE FROM state WHERE key = ?", key);
    this.#text.set(key, null);
  }

  /** Drops everything kept: the next reads go to SQLite. */
  forget(): void {
    this.#text.clear();
    this.#parsed.clear();
  }

  #keep(key: string, text: string | null): void {
    if (text !== null && text.length > keptTextMax) {
      this.#text.delete(key);
      this.#parsed.delete(key);
    } else this.#text.set(key, text);
  }
}
