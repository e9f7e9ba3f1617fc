/**
 * The agent object's own storage (SQLite in the Durable Object): the durable
 * inbox, small state values, and the deadline table that one alarm is
 * multiplexed over. Every write is synchronous, so it is durable before the
 * RPC that made it returns.
 */
import { createId } from "../ids";
import type { InboxEvent, QueuedEvent } from "./inbox-event";

export type DeadlineKind = "plan" | "tool_timeout" | "call_expiry" | "webhook" | "retry_inbox";

export type Deadline = { id: string; kind: DeadlineKind; dueAt: number; payload: unknown };

type InboxRow = { id: string; event: string; received_at: string; attempts: number };
type DeadlineRow = { id: string; kind: DeadlineKind; due_at: number; payload: string };

export class AgentStorage {
  constructor(private readonly sql: SqlStorage) {
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
  }

  // ── inbox ──────────────────────────────────────────────────────────────

  enqueue(event: InboxEvent, id: string = createId("evt")): string {
    this.sql.exec(
      "INSERT INTO inbox (id, event, received_at) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING",
      id,
      JSON.stringify(event),
      new Date().toISOString(),
    );
    return id;
  }

  /** Events ready to be processed now (not claimed by a run, not backing off). */
  readyCount(now = Date.now()): number {
    const row = this.sql
      .exec<{ count: number }>("SELECT COUNT(*) AS count FROM inbox WHERE run_id IS NULL AND not_before <= ?", now)
      .toArray()[0];
    return row?.count ?? 0;
  }

  /** The earliest time a backing-off event becomes ready, if any. */
  nextReadyAt(): number | undefined {
    const row = this.sql.exec<{ at: number | null }>("SELECT MIN(not_before) AS at FROM inbox WHERE run_id IS NULL").toArray()[0];
    return row?.at ?? undefined;
  }

  /** Claims every ready event for a run, oldest first. */
  claim(runId: string, now = Date.now()): QueuedEvent[] {
    this.sql.exec("UPDATE inbox SET run_id = ? WHERE run_id IS NULL AND not_before <= ?", runId, now);
    return this.claimed(runId);
  }

  claimed(runId: string): QueuedEvent[] {
    return this.sql
      .exec<InboxRow>("SELECT id, event, received_at, attempts FROM inbox WHERE run_id = ? ORDER BY position", runId)
      .toArray()
      .map((row) => ({ id: row.id, receivedAt: row.received_at, attempts: row.attempts, event: JSON.parse(row.event) as InboxEvent }));
  }

  /** The run finished: its events are done. */
  complete(runId: string): void {
    this.sql.exec("DELETE FROM inbox WHERE run_id = ?", runId);
  }

  /** Puts a run's events back in the queue (interrupted runs). */
  release(runId: string): void {
    this.sql.exec("UPDATE inbox SET run_id = NULL WHERE run_id = ?", runId);
  }

  /**
   * A failed run: its events are retried after a backoff, at most
   * `maxAttempts` times; events out of attempts are dropped from the inbox
   * (they stay on the failed run's record). Returns how many will be retried.
   */
  retryLater(runId: string, maxAttempts: number, backoffMs: (attempt: number) => number, now = Date.now()): number {
    const events = this.claimed(runId);
    let retried = 0;
    for (const queued of events) {
      const attempts = queued.attempts + 1;
      if (attempts >= maxAttempts) {
        this.sql.exec("DELETE FROM inbox WHERE id = ?", queued.id);
      } else {
        this.sql.exec("UPDATE inbox SET run_id = NULL, attempts = ?, not_before = ? WHERE id = ?", attempts, now + backoffMs(attempts), queued.id);
        retried += 1;
      }
    }
    return retried;
  }

  pendingEvents(): QueuedEvent[] {
    return this.sql
      .exec<InboxRow>("SELECT id, event, received_at, attempts FROM inbox ORDER BY position")
      .toArray()
      .map((row) => ({ id: row.id, receivedAt: row.received_at, attempts: row.attempts, event: JSON.parse(row.event) as InboxEvent }));
  }

  // ── state ──────────────────────────────────────────────────────────────

  get<T>(key: string): T | undefined {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM state WHERE key = ?", key).toArray()[0];
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  set(key: string, value: unknown): void {
    this.sql.exec(
      "INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      key,
      JSON.stringify(value),
    );
  }

  delete(key: string): void {
    this.sql.exec("DELETE FROM state WHERE key = ?", key);
  }

  // ── deadlines ──────────────────────────────────────────────────────────

  /** Adds or moves a deadline; the same id never makes two. */
  setDeadline(deadline: Deadline): void {
    this.sql.exec(
      "INSERT INTO deadlines (id, kind, due_at, payload) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at, payload = excluded.payload",
      deadline.id,
      deadline.kind,
      deadline.dueAt,
      JSON.stringify(deadline.payload ?? null),
    );
  }

  deleteDeadline(id: string): void {
    this.sql.exec("DELETE FROM deadlines WHERE id = ?", id);
  }

  dueDeadlines(now = Date.now()): Deadline[] {
    return this.sql
      .exec<DeadlineRow>("SELECT id, kind, due_at, payload FROM deadlines WHERE due_at <= ? ORDER BY due_at", now)
      .toArray()
      .map((row) => ({ id: row.id, kind: row.kind, dueAt: row.due_at, payload: JSON.parse(row.payload) as unknown }));
  }

  deadlines(): Deadline[] {
    return this.sql
      .exec<DeadlineRow>("SELECT id, kind, due_at, payload FROM deadlines ORDER BY due_at")
      .toArray()
      .map((row) => ({ id: row.id, kind: row.kind, dueAt: row.due_at, payload: JSON.parse(row.payload) as unknown }));
  }

  earliestDeadline(): number | undefined {
    const row = this.sql.exec<{ at: number | null }>("SELECT MIN(due_at) AS at FROM deadlines").toArray()[0];
    return row?.at ?? undefined;
  }
}
