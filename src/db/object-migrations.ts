/**
 * Versioned tables for a Durable Object's own SQLite. Each object kind keeps
 * an ordered list of migrations (`agents/agent-migrations.ts`,
 * `spaces/space-migrations.ts`); the object's storage records how many of
 * them it has run, and each instance runs the rest once, when it starts,
 * before anything else reads its tables.
 *
 * The number would naturally be `PRAGMA user_version`, but a Durable Object's
 * SQLite refuses that pragma (SQLITE_AUTH), so it is kept in a one-row table,
 * `schema_version`. An object made before versioning has no such table: it is
 * at version 0, whatever tables it has, which is why the first migrations are
 * written to find their tables possibly there already.
 *
 * Each migration runs in its own transaction with the version it reaches: a
 * failure leaves the object at the last version that completed, and is
 * thrown. Storage at a version newer than this code knows is refused, loudly,
 * before anything reads it (a rollback to older code must not mis-read rows
 * written by newer code).
 */

export type ObjectMigration = {
  /** What it changes, in a few words (shown when it fails). */
  name: string;
  up(sql: SqlStorage): void;
};

/** What the runner needs of the object's storage (its SQLite and synchronous transactions). */
export type MigratableStorage = Pick<DurableObjectStorage, "sql" | "transactionSync">;

/**
 * Brings the object's tables to the last migration of `migrations`. When they
 * are there already, this costs two statements (the version table's create,
 * a no-op, and one read).
 */
export function migrateObjectStorage(storage: MigratableStorage, kind: string, migrations: readonly ObjectMigration[]): { from: number; to: number } {
  const sql = storage.sql;
  sql.exec("CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
  const from = sql.exec<{ version: number }>("SELECT version FROM schema_version WHERE id = 1").toArray()[0]?.version ?? 0;
  if (from > migrations.length) {
    throw new Error(
      `The ${kind} object's storage is at version ${from}, but this code knows versions up to ${migrations.length}: it was written by a newer release. Nothing was changed; deploy that release (or one after it) again.`,
    );
  }
  for (let version = from + 1; version <= migrations.length; version += 1) {
    const migration = migrations[version - 1];
    try {
      storage.transactionSync(() => {
        migration.up(sql);
        sql.exec("INSERT INTO schema_version (id, version) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET version = excluded.version", version);
      });
    } catch (error) {
      throw new Error(`The ${kind} object's storage could not take migration ${version} (${migration.name}); it stays at version ${version - 1}`, { cause: error });
    }
  }
  return { from, to: migrations.length };
}
