/**
 * The drizzle client over D1, with a statement counter: every statement that
 * reaches D1 goes through `prepare`, so counting there is exact. The counter
 * feeds the benchmarks (statements per cycle) through `GET /api/stats`.
 */
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type StatementCounter = { count: number };

/** Every statement of this isolate (read by `GET /api/stats`). */
export const statementCounter: StatementCounter = { count: 0 };

function countingDatabase(database: D1Database, scoped?: StatementCounter): D1Database {
  return new Proxy(database, {
    get(target, property, receiver) {
      if (property === "prepare") {
        return (query: string) => {
          statementCounter.count += 1;
          if (scoped) scoped.count += 1;
          return target.prepare(query);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const clients = new WeakMap<D1Database, Database>();

export function getDatabase(database: D1Database) {
  let client = clients.get(database);
  if (!client) {
    client = drizzle(countingDatabase(database), { schema });
    clients.set(database, client);
  }
  return client;
}

/** A client whose statements are also counted in `counter` (one cycle's D1 cost). */
export function createDatabase(database: D1Database, counter: StatementCounter): Database {
  return drizzle(countingDatabase(database, counter), { schema });
}

export type Database = ReturnType<typeof drizzle<typeof schema>>;
