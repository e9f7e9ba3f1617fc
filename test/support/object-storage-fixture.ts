/**
 * Object-storage fixtures (`test/fixtures/object-storage/<commit>.json`,
 * made by `scripts/object-storage-fixture.mjs` on an older release's code):
 * read, and planted into a live object in place of what today's code wrote,
 * as if that object had been made by the older release.
 *
 * The fixture's world and the test's are the same scenario, so the fixture's
 * ids are mapped onto the test's by role (each id's random part is replaced
 * wherever it appears: in a column, inside stored JSON, in ids derived from
 * it). Times are moved by how long ago the fixture was made, as if today's
 * code started the moment the older release stopped: a deadline that was ten
 * minutes away is still ten minutes away. Nothing else about a row changes.
 */
import { runInDurableObject } from "cloudflare:test";
import { z } from "zod";

const Cell = z.union([z.string(), z.number(), z.null()]);
const StoredObject = z.object({ schema: z.array(z.string()), rows: z.record(z.string(), z.array(z.record(z.string(), Cell))) });
export type StoredObject = z.infer<typeof StoredObject>;

export const StorageFixture = z.object({
  commit: z.string(),
  madeAt: z.number(),
  roles: z.record(z.string(), z.string()),
  agent: StoredObject.optional(),
  space: StoredObject.optional(),
});
export type StorageFixture = z.infer<typeof StorageFixture>;

type Cell = z.infer<typeof Cell>;

/** Ids whose random part is mapped: `<prefix>_<32 hex digits>`, as `createId` makes them. */
const generatedId = /^[a-z]+_([0-9a-f]{32})$/;
/** Times within this distance of when the fixture was made are moved; nothing else a fixture holds is this close to one. */
const timeWindowMs = 30 * 24 * 3600 * 1000;
const epochMs = /\b1\d{12}\b/g;
const isoTime = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\b/g;

/** How a fixture's cells become this world's: its ids by role onto `roles`, its times moved to `now`. */
export function translation(fixture: StorageFixture, roles: Record<string, string>, now = Date.now()): (cell: Cell) => Cell {
  const hexes: [string, string][] = [];
  for (const [role, old] of Object.entries(fixture.roles)) {
    const from = generatedId.exec(old)?.[1];
    const to = roles[role] === undefined ? undefined : generatedId.exec(roles[role])?.[1];
    if (from && to) hexes.push([from, to]);
  }
  const shift = now - fixture.madeAt;
  const near = (ms: number) => Math.abs(ms - fixture.madeAt) < timeWindowMs;
  return (cell) => {
    if (typeof cell === "number") return Number.isInteger(cell) && near(cell) ? cell + shift : cell;
    if (typeof cell !== "string") return cell;
    let text = cell;
    for (const [from, to] of hexes) text = text.replaceAll(from, to);
    text = text.replace(epochMs, (digits) => (near(Number(digits)) ? String(Number(digits) + shift) : digits));
    return text.replace(isoTime, (iso) => (near(Date.parse(iso)) ? new Date(Date.parse(iso) + shift).toISOString() : iso));
  };
}

/** A fixture's rows, translated (what the upgraded object should hold and show). */
export function translatedRows(stored: StoredObject, translate: (cell: Cell) => Cell): StoredObject["rows"] {
  return Object.fromEntries(
    Object.entries(stored.rows).map(([table, rows]) => [table, rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, cell]) => [column, translate(cell)])))]),
  );
}

/**
 * Empties the object's storage and writes the fixture's tables and rows into
 * it, as the older release had them. The object is then aborted by the test
 * (`abortAllDurableObjects`), so its next instance starts on this storage.
 */
export async function plantStorage(stub: DurableObjectStub, stored: StoredObject, translate: (cell: Cell) => Cell, options: { alarmAt?: number } = {}): Promise<void> {
  await runInDurableObject(stub, async (_instance, state) => {
    await state.storage.deleteAll();
    const sql = state.storage.sql;
    state.storage.transactionSync(() => {
      for (const statement of stored.schema) sql.exec(statement);
      for (const [table, rows] of Object.entries(translatedRows(stored, translate))) {
        for (const row of rows) {
          const columns = Object.keys(row);
          sql.exec(`INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, ...Object.values(row));
        }
      }
    });
    // The alarm is not in SQLite: a waiting agent had its heartbeat set, and so it is here.
    if (options.alarmAt !== undefined) await state.storage.setAlarm(options.alarmAt);
  });
}
