/**
 * The migration runner of the objects' own SQLite (`src/db/object-migrations.ts`),
 * on a real Durable Object's storage emptied first: each migration runs once,
 * in order, in its own transaction with the version it reaches; a failure
 * stays at the last version that completed; a version newer than the code
 * knows is refused before anything changes. Then the agent's and the space's
 * own lists: a fresh object gets the tables the last release before
 * versioning made, running them again changes nothing, and an object a newer
 * release wrote does not start.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agentMigrations, migrateAgentStorage } from "../../src/agents/agent-migrations";
import { migrateObjectStorage, type ObjectMigration } from "../../src/db/object-migrations";
import { countedSql, objectStatementCounter } from "../../src/db/object-statements";
import { migrateSpaceStorage } from "../../src/spaces/space-migrations";
import beforeVersioning from "../fixtures/object-storage/c0f4e70.json";
import { StorageFixture } from "../support/object-storage-fixture";

/** A fresh object's storage, emptied (the object's own tables dropped), for `work`. */
async function inEmptyStorage<T>(work: (storage: DurableObjectStorage) => T | Promise<T>): Promise<T> {
  return runInDurableObject(env.AGENT.getByName(`migrations-${crypto.randomUUID()}`), async (_instance, state) => {
    await state.storage.deleteAll();
    return work(state.storage);
  });
}

const tables = (storage: DurableObjectStorage) =>
  storage.sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name")
    .toArray()
    .map((row) => row.name);
const version = (storage: DurableObjectStorage) => storage.sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0]?.version;

const migrations: ObjectMigration[] = [
  { name: "notes", up: (sql) => void sql.exec("CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL)") },
  { name: "notes.pinned", up: (sql) => void sql.exec("ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0") },
  { name: "tags", up: (sql) => void sql.exec("CREATE TABLE tags (note_id TEXT NOT NULL, tag TEXT NOT NULL)") },
];

describe("the objects' migration runner", () => {
  it("runs every migration once, in order, and records the version; run again, it changes nothing", async () => {
    await inEmptyStorage((storage) => {
      expect(migrateObjectStorage(storage, "test", migrations)).toEqual({ from: 0, to: 3 });
      expect(tables(storage)).toEqual(["notes", "schema_version", "tags"]);
      expect(version(storage)).toBe(3);
      storage.sql.exec("INSERT INTO notes (id, text, pinned) VALUES ('n1', 'kept', 1)");

      // A second start: the same list is a no-op (an ALTER run twice would throw), and the rows stay.
      expect(migrateObjectStorage(storage, "test", migrations)).toEqual({ from: 3, to: 3 });
      expect(storage.sql.exec("SELECT id, text, pinned FROM notes").toArray()).toEqual([{ id: "n1", text: "kept", pinned: 1 }]);

      // What an up-to-date object pays at its start: two statements (the version table's no-op create, one read).
      const counted = { sql: countedSql(storage.sql), transactionSync: storage.transactionSync.bind(storage) };
      const before = objectStatementCounter.count;
      migrateObjectStorage(counted, "test", migrations);
      expect(objectStatementCounter.count - before).toBe(2);
    });
  });

  it("goes on from where an object is: a list that grew runs only its new migrations", async () => {
    await inEmptyStorage((storage) => {
      migrateObjectStorage(storage, "test", migrations.slice(0, 2));
      expect(version(storage)).toBe(2);
      expect(migrateObjectStorage(storage, "test", migrations)).toEqual({ from: 2, to: 3 });
      expect(tables(storage)).toContain("tags");
    });
  });

  it("a migration that fails is rolled back whole, the version stays at the last one done, and the error names it", async () => {
    await inEmptyStorage((storage) => {
      const broken: ObjectMigration = {
        name: "half a change",
        up(sql) {
          sql.exec("CREATE TABLE half (id TEXT)");
          sql.exec("INSERT INTO missing_table VALUES (1)");
        },
      };
      expect(() => migrateObjectStorage(storage, "test", [migrations[0], broken])).toThrow(
        "The test object's storage could not take migration 2 (half a change); it stays at version 1",
      );
      expect(version(storage)).toBe(1);
      expect(tables(storage)).not.toContain("half");
      // Fixed in the next release, it runs from there.
      expect(migrateObjectStorage(storage, "test", migrations)).toEqual({ from: 1, to: 3 });
    });
  });

  it("storage at a version newer than the code knows is refused, loudly, and left as it is", async () => {
    await inEmptyStorage((storage) => {
      migrateObjectStorage(storage, "test", migrations);
      expect(() => migrateObjectStorage(storage, "test", migrations.slice(0, 1))).toThrow(
        "The test object's storage is at version 3, but this code knows versions up to 1: it was written by a newer release",
      );
      expect(version(storage)).toBe(3);
      expect(tables(storage)).toEqual(["notes", "schema_version", "tags"]);
    });
  });
});

const tableInfo = (sql: SqlStorage) =>
  Object.fromEntries(
    sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name != 'schema_version' ORDER BY name",
      )
      .toArray()
      .map(({ name }) => [
        name,
        sql
          .exec(`SELECT * FROM pragma_table_info('${name}')`)
          .toArray()
          .concat(sql.exec(`SELECT * FROM pragma_index_info('${name}')`).toArray()),
      ]),
  );

describe("the agent's and the space's migrations", () => {
  it("a fresh object gets exactly the tables the last release before versioning made (c0f4e70), plus the ones later migrations add: same columns, types, defaults and keys", async () => {
    const fixture = StorageFixture.parse(beforeVersioning);
    // Tables added by migrations since (the agent's variables).
    const addedSince = { agent: ["variables"], space: [] as string[] };
    for (const [namespace, stored, added] of [
      [env.AGENT, fixture.agent, addedSince.agent],
      [env.SPACE, fixture.space, addedSince.space],
    ] as const) {
      if (!stored) throw new Error("the fixture lacks an object");
      const fresh = await runInDurableObject(namespace.getByName(`fresh-${crypto.randomUUID()}`), async (_instance, state) => tableInfo(state.storage.sql));
      const old = await inEmptyStorage((storage) => {
        for (const statement of stored.schema) storage.sql.exec(statement);
        return tableInfo(storage.sql);
      });
      expect(Object.keys(fresh)).toHaveLength(stored.schema.length + added.length);
      expect(Object.fromEntries(Object.entries(fresh).filter(([table]) => !added.includes(table)))).toEqual(old);
    }
  });

  it("run again on objects that have them, they change nothing", async () => {
    for (const [namespace, migrate] of [
      [env.AGENT, migrateAgentStorage],
      [env.SPACE, migrateSpaceStorage],
    ] as const) {
      await runInDurableObject(namespace.getByName(`again-${crypto.randomUUID()}`), async (_instance, state) => {
        const before = { tables: tableInfo(state.storage.sql), version: version(state.storage) };
        migrate(state.storage);
        migrate(state.storage);
        expect({ tables: tableInfo(state.storage.sql), version: version(state.storage) }).toEqual(before);
      });
    }
  });

  it("an agent object whose storage a newer release wrote refuses to start, saying why, and its storage is left as it is", async () => {
    const name = `newer-${crypto.randomUUID()}`;
    await runInDurableObject(env.AGENT.getByName(name), async (_instance, state) => {
      state.storage.sql.exec("UPDATE schema_version SET version = ?", agentMigrations.length + 1);
      state.storage.sql.exec("INSERT INTO state (key, value) VALUES ('written_by', '\"a newer release\"')");
    });
    await abortAllDurableObjects();
    const refused = runInDurableObject(env.AGENT.getByName(name), async () => "started");
    await expect(refused).rejects.toThrow(`The agent object's storage is at version ${agentMigrations.length + 1}, but this code knows versions up to ${agentMigrations.length}`);
    // Every entry point waits on the same start: an RPC is refused the same way.
    const stub = env.AGENT.getByName(name);
    const answer = await stub.toolStats().then(
      () => "answered",
      (error: unknown) => String(error),
    );
    expect(answer).toContain("written by a newer release");
  });
});
