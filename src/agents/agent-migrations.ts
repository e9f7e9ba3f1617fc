/**
 * The agent object's tables, as an ordered list of migrations (run by
 * `db/object-migrations.ts` when the object starts). Add a change at the end;
 * never edit one that has shipped: objects out there ran it as it was.
 *
 * What each table holds: `inbox` (events waiting for a cycle, or claimed by
 * the running one), `state` (small typed values: the active run, the
 * consciousness, the stream's reserved seqs…), `deadlines` (what the one
 * alarm is multiplexed over), `staged_outcomes` (call outcomes on their way
 * to D1), the journal of the running cycle (`journal_steps`, `journal_calls`,
 * `journal_waits`) and `tool_stats` (call statistics per tool).
 */
import { migrateObjectStorage, type MigratableStorage, type ObjectMigration } from "../db/object-migrations";

export const agentMigrations: readonly ObjectMigration[] = [
  {
    // The tables as objects made before versioning have them. `IF NOT EXISTS`: such objects are at version 0 with these tables in place.
    name: "the tables before versioning",
    up(sql) {
      sql.exec(`CREATE TABLE IF NOT EXISTS inbox (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        event TEXT NOT NULL,
        received_at TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        run_id TEXT,
        not_before INTEGER NOT NULL DEFAULT 0
      )`);
      sql.exec("CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      sql.exec("CREATE TABLE IF NOT EXISTS deadlines (id TEXT PRIMARY KEY, kind TEXT NOT NULL, due_at INTEGER NOT NULL, payload TEXT NOT NULL)");
      sql.exec("CREATE TABLE IF NOT EXISTS staged_outcomes (call_id TEXT PRIMARY KEY, outcome TEXT NOT NULL, staged_at INTEGER NOT NULL)");
      sql.exec("CREATE TABLE IF NOT EXISTS journal_steps (run_id TEXT NOT NULL, step INTEGER NOT NULL, messages TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (run_id, step))");
      sql.exec(`CREATE TABLE IF NOT EXISTS journal_calls (
        call_id TEXT PRIMARY KEY,
        model_call_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        position INTEGER NOT NULL,
        tool_name TEXT NOT NULL,
        input TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        outcome TEXT,
        announced INTEGER NOT NULL DEFAULT 0,
        card_space_id TEXT
      )`);
      // Pending calls a call of the run waits on besides its own (an approval that gates it, calls it waits for).
      sql.exec("CREATE TABLE IF NOT EXISTS journal_waits (pending_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, outcome TEXT)");
      sql.exec(`CREATE TABLE IF NOT EXISTS tool_stats (
        tool TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        calls INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        failures TEXT NOT NULL,
        cache_hits INTEGER NOT NULL,
        bytes_in INTEGER NOT NULL,
        bytes_out INTEGER NOT NULL,
        latencies TEXT NOT NULL,
        last_at INTEGER NOT NULL
      )`);
    },
  },
  {
    // A call's card shows public-key clients only its id, name and status (`card_minimal`); an approved call was handed to
    // its tool (`dispatched`: never run again after a restart); an approval keeps the schema of the tool it gates (`args_schema`).
    // The one migration that looks before it changes: the last release before versioning added these columns itself,
    // so an object at version 0 may have them already.
    name: "journal columns card_minimal, dispatched, args_schema",
    up(sql) {
      const present = new Set(
        sql
          .exec<{ qualified: string }>(
            "SELECT 'journal_calls.' || name AS qualified FROM pragma_table_info('journal_calls') UNION ALL SELECT 'journal_waits.' || name FROM pragma_table_info('journal_waits')",
          )
          .toArray()
          .map((row) => row.qualified),
      );
      if (!present.has("journal_calls.card_minimal")) sql.exec("ALTER TABLE journal_calls ADD COLUMN card_minimal INTEGER NOT NULL DEFAULT 0");
      if (!present.has("journal_calls.dispatched")) sql.exec("ALTER TABLE journal_calls ADD COLUMN dispatched INTEGER NOT NULL DEFAULT 0");
      if (!present.has("journal_waits.args_schema")) sql.exec("ALTER TABLE journal_waits ADD COLUMN args_schema TEXT");
    },
  },
  {
    // The agent's own variables (`get_env` / `set_env`, agent-variables.ts); `set_by` answers a call done again after a restart.
    name: "variables",
    up(sql) {
      sql.exec("CREATE TABLE IF NOT EXISTS variables (key TEXT PRIMARY KEY, value TEXT NOT NULL, set_by TEXT NOT NULL, previous TEXT)");
    },
  },
];

/** Runs the agent object's migrations still due (at the object's start, and after `deleteAll` empties it). */
export function migrateAgentStorage(storage: MigratableStorage): void {
  migrateObjectStorage(storage, "agent", agentMigrations);
}
