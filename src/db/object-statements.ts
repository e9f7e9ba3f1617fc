/**
 * A count of the SQLite statements the Durable Objects run in their own
 * storage, beside the D1 count (`client.ts`), for the benchmarks through
 * `GET /api/stats`: in `wrangler dev` the Worker and every object share one
 * isolate, so the count is the whole gateway's; deployed, each object is its
 * own isolate and the Worker's count stays 0.
 */

/** Every statement the objects of this isolate ran on their SQLite; `trace`, when a list is set, gets each one's text (for finding where a cycle's statements go). */
export const objectStatementCounter: { count: number; trace?: string[] } = { count: 0 };

/** `sql` with each `exec` counted; everything else is the object's own. */
export function countedSql(sql: SqlStorage): SqlStorage {
  const exec = ((query: string, ...bindings: unknown[]) => {
    objectStatementCounter.count += 1;
    objectStatementCounter.trace?.push(/state|deadlines/.test(query) ? `${query} [${String(bindings[0]).slice(0, 30)}]` : query);
    return sql.exec(query, ...bindings);
  }) as SqlStorage["exec"];
  return new Proxy(sql, {
    get(target, property) {
      if (property === "exec") return exec;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
