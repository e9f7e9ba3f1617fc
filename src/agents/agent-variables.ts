/**
 * The agent's own variables (`get_env` / `set_env`): short strings by key in
 * the agent object's SQLite, nothing to do with the gateway's secrets or its
 * env. Each value remembers the call that set it, so a `set_env` done again
 * after a restart answers what it answered the first time.
 */
/** The most variables an agent keeps (a key's and a value's size are checked by the tools' schemas). */
export const maxVariables = 100;

type Row = { value: string; set_by: string; previous: string | null };

export class AgentVariables {
  constructor(private readonly sql: SqlStorage) {}

  get(key: string): string | null {
    return this.sql.exec<{ value: string }>("SELECT value FROM variables WHERE key = ?", key).toArray()[0]?.value ?? null;
  }

  set(key: string, value: string, callId: string): { ok: true; previous: string | null } | { ok: false; error: string } {
    const row = this.sql.exec<Row>("SELECT value, set_by, previous FROM variables WHERE key = ?", key).toArray()[0];
    if (row?.set_by === callId) return { ok: true, previous: row.previous };
    if (!row) {
      const count = this.sql.exec<{ count: number }>("SELECT count(*) AS count FROM variables").one().count;
      if (count >= maxVariables) return { ok: false, error: `You have ${maxVariables} variables, the most an agent keeps; set an existing one instead` };
    }
    this.sql.exec(
      `INSERT INTO variables (key, value, set_by, previous) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, set_by = excluded.set_by, previous = excluded.previous`,
      key,
      value,
      callId,
      row?.value ?? null,
    );
    return { ok: true, previous: row?.value ?? null };
  }
}
