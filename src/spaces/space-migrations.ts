/**
 * The space object's tables, as an ordered list of migrations (run by
 * `db/object-migrations.ts` when the object starts). Add a change at the end;
 * never edit one that has shipped: objects out there ran it as it was.
 *
 * What each table holds: `event_log` and `event_meta` (the space's gap-free
 * event log and its last seq, `streams/event-log.ts`), `messages` and
 * `message_meta` (the newest part of the space's history, written here before
 * D1, and where that window starts, `message-store.ts`).
 */
import { migrateObjectStorage, type MigratableStorage, type ObjectMigration } from "../db/object-migrations";

export const spaceMigrations: readonly ObjectMigration[] = [
  {
    // The tables as objects made before versioning have them. `IF NOT EXISTS`: such objects are at version 0 with these tables in place.
    name: "the tables before versioning",
    up(sql) {
      sql.exec("CREATE TABLE IF NOT EXISTS event_log (seq INTEGER PRIMARY KEY, frame TEXT NOT NULL, public_frame TEXT)");
      sql.exec("CREATE TABLE IF NOT EXISTS event_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
      sql.exec(
        "CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL, dirty INTEGER NOT NULL, version INTEGER NOT NULL, created_ms INTEGER NOT NULL, outside INTEGER NOT NULL DEFAULT 0)",
      );
      sql.exec("CREATE INDEX IF NOT EXISTS messages_seq ON messages (outside, seq)");
      sql.exec("CREATE INDEX IF NOT EXISTS messages_dirty ON messages (dirty, seq)");
      sql.exec("CREATE TABLE IF NOT EXISTS message_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
    },
  },
];

/** Runs the space object's migrations still due (at the object's start). */
export function migrateSpaceStorage(storage: MigratableStorage): void {
  migrateObjectStorage(storage, "space", spaceMigrations);
}
