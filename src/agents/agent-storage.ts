/**
 * The agent object's own storage (SQLite in the Durable Object): the durable
 * inbox, small typed state values, the deadline table that one alarm is
 * multiplexed over, and staged call outcomes (results on their way to D1).
 * Every write is synchronous, so it is durable before the RPC that made it
 * returns; everything read back is parsed, so a stored shape from an older
 * version fails loudly instead of being cast.
 */
import { z } from "zod";
import { countedSql } from "../db/object-statements";
import { parseStoredJson, parseStoredValue } from "../db/parse-stored-json";
import { createId } from "../ids";
import { A2aPollDeadline, CallExpiryDeadline, ToolOutcome, ToolTimeoutDeadline } from "../tools";
import { WebhookDeadline } from "../webhooks/webhook-deadline";
import { InboxEvent, type QueuedEvent, ToolResultEvent } from "./inbox-event";
import { StateValues } from "./state-values";
import { SubagentAnswerDeadline } from "./subagent-answer-deadline";
import { NotifyDeadline } from "../webhooks/event-notifier";

/** One row of the deadline table, by kind (the alarm fires at the earliest). */
export const Deadline = z.discriminatedUnion("kind", [
  z.object({ id: z.string(), kind: z.literal("plan"), dueAt: z.number(), payload: z.object({ planId: z.string() }) }),
  /** The tool engine's: a sync wait's backstop, a pending call's expiry, a webhook's next attempt. */
  ToolTimeoutDeadline,
  CallExpiryDeadline,
  /** A remote A2A agent's task still under way: its next poll. */
  A2aPollDeadline,
  WebhookDeadline,
  /** A finished run whose record has not reached D1 yet: written again until it does. */
  z.object({ id: z.string(), kind: z.literal("run_record"), dueAt: z.number(), payload: z.object({ runId: z.string(), attempt: z.number().int() }) }),
  /** A staged outcome whose D1 transition may have happened: settled by the alarm. */
  z.object({ id: z.string(), kind: z.literal("reconcile"), dueAt: z.number(), payload: z.object({ toolCallId: z.string() }) }),
  /** A `sleep` call's wake-up: when due, its event enters the inbox (under its own id, so never twice). */
  z.object({ id: z.string(), kind: z.literal("sleep"), dueAt: z.number(), payload: z.object({ eventId: z.string(), event: ToolResultEvent }) }),
  /** A sub-agent's answer to the agent that gave it a task, sent until that agent's object takes it. */
  SubagentAnswerDeadline,
  /** An event for webhook subscriptions, not yet fanned out (`webhooks/event-notifier.ts`). */
  NotifyDeadline,
]);

export type Deadline = z.infer<typeof Deadline>;
export type DeadlineKind = Deadline["kind"];

/** An outcome written here before its D1 transition, so a crash between the two loses nothing. */
export type StagedOutcome = { toolCallId: string; outcome: ToolOutcome; stagedAt: number };

type InboxRow = { id: string; event: string; received_at: string; attempts: number };
type DeadlineRow = { id: string; kind: string; due_at: number; payload: string };
type StagedRow = { call_id: string; outcome: string; staged_at: number };

export class AgentStorage {
  readonly #sql: SqlStorage;
  readonly #state: StateValues;

  constructor(private readonly storage: DurableObjectStorage) {
    // The tables are the object's migrations' (`agent-migrations.ts`), run before anything reads them.
    this.#sql = countedSql(storage.sql);
    this.#state = new StateValues(this.#sql);
  }

  /** Runs `work` atomically: every write in it lands, or none does. */
  transaction<T>(work: () => T): T {
    try {
      return this.storage.transactionSync(work);
    } catch (error) {
      // Rolled back: what was read into memory inside it may no longer be so.
      this.#claimedMemo = undefined;
      this.#earliestMemo = undefined;
      this.#stagedMemo = undefined;
      this.#state.forget();
      throw error;
    }
  }

  /**
   * A run's claimed events, parsed once: a cycle reads them several times
   * (its trigger, its prompt, its end), and only claiming, completing,
   * requeueing or dropping changes them (all here).
   */
  #claimedMemo: { runId: string; events: QueuedEvent[] } | undefined;

  /**
   * The earliest deadline and whether any outcome is staged, read once and
   * kept until a write here changes them (this is their only writer; a
   * rolled-back transaction forgets them): the scheduler asks for both every
   * time it decides where the alarm goes. `null`: none.
   */
  #earliestMemo: { at: number | null } | undefined;
  #stagedMemo: boolean | undefined;

  // ── inbox ──────────────────────────────────────────────────────────────

  /** Queues an event; an id the inbox already holds is ignored (redelivery is idempotent). */
  enqueue(event: InboxEvent, id: string = createId("evt")): string {
    this.#sql.exec("INSERT INTO inbox (id, event, received_at) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING", id, JSON.stringify(event), new Date().toISOString());
    return id;
  }

  /** Whether the inbox holds an event with this id (queued or claimed by the running cycle). */
  hasEvent(id: string): boolean {
    return this.#sql.exec("SELECT 1 FROM inbox WHERE id = ?", id).toArray().length > 0;
  }

  /** Events ready to be processed now (not claimed by a run, not backing off). */
  readyCount(now = Date.now()): number {
    const row = this.#sql.exec<{ count: number }>("SELECT COUNT(*) AS count FROM inbox WHERE run_id IS NULL AND not_before <= ?", now).toArray()[0];
    return row?.count ?? 0;
  }

  /** The earliest time a queued event becomes ready, if any. */
  nextReadyAt(): number | undefined {
    const row = this.#sql.exec<{ at: number | null }>("SELECT MIN(not_before) AS at FROM inbox WHERE run_id IS NULL").toArray()[0];
    return row?.at ?? undefined;
  }

  /**
   * Claims every ready event for a run, oldest first. A reflection event is
   * claimed alone, and only when nothing else is ready (it waits for quiet).
   * A task that brings its caller's settings (`inherited`, `run-config.ts`)
   * is claimed alone too, in its turn: the run is that task's, with that
   * caller's model and limits; the events before it go in a run of their own
   * first, those after it in the next.
   */
  claim(runId: string, now = Date.now()): QueuedEvent[] {
    this.#claimedMemo = undefined;
    const ready = "run_id IS NULL AND not_before <= ? AND json_extract(event, '$.type') IS NOT 'reflection'";
    // One statement, as before such tasks: `f` is the first ready event, `a` the first ready task that brings its
    // caller's settings. Without one, every ready event; with one first, it alone; else the events before it.
    this.#sql.exec(
      `WITH bounds AS (SELECT MIN(position) AS f, MIN(CASE WHEN json_extract(event, '$.inherited') IS NOT NULL THEN position END) AS a FROM inbox WHERE ${ready})
       UPDATE inbox SET run_id = ? WHERE ${ready}
         AND ((SELECT a FROM bounds) IS NULL OR position < (SELECT a FROM bounds) OR position = (SELECT CASE WHEN a = f THEN a END FROM bounds))`,
      now,
      runId,
      now,
    );
    const claimed = this.claimed(runId);
    if (claimed.length > 0) return claimed;
    this.#sql.exec(
      "UPDATE inbox SET run_id = ? WHERE position = (SELECT MIN(position) FROM inbox WHERE run_id IS NULL AND not_before <= ? AND json_extract(event, '$.type') = 'reflection')",
      runId,
      now,
    );
    this.#claimedMemo = undefined;
    return this.claimed(runId);
  }

  claimed(runId: string): QueuedEvent[] {
    if (this.#claimedMemo?.runId !== runId) {
      const events = this.#queued(this.#sql.exec<InboxRow>("SELECT id, event, received_at, attempts FROM inbox WHERE run_id = ? ORDER BY position", runId).toArray());
      this.#claimedMemo = { runId, events };
    }
    return [...this.#claimedMemo.events];
  }

  /** The run finished: its events are done. */
  complete(runId: string): void {
    this.#claimedMemo = undefined;
    this.#sql.exec("DELETE FROM inbox WHERE run_id = ?", runId);
  }

  /** Puts a run's events back in the queue, ahead of later ones, without counting an attempt (an interrupted run). */
  requeue(runId: string): void {
    this.#claimedMemo = undefined;
    this.#sql.exec("UPDATE inbox SET run_id = NULL WHERE run_id = ?", runId);
  }

  /** Drops events for good (superseded by newer ones). */
  drop(ids: string[]): void {
    this.#claimedMemo = undefined;
    for (const id of ids) this.#sql.exec("DELETE FROM inbox WHERE id = ?", id);
  }

  /** Drops one queued event if no run has claimed it yet; true if it did. */
  dropQueued(id: string): boolean {
    return this.#sql.exec("DELETE FROM inbox WHERE id = ? AND run_id IS NULL", id).rowsWritten > 0;
  }

  /** Ready events (not claimed by a run), oldest first. */
  readyEvents(now = Date.now()): QueuedEvent[] {
    return this.#queued(this.#sql.exec<InboxRow>("SELECT id, event, received_at, attempts FROM inbox WHERE run_id IS NULL AND not_before <= ? ORDER BY position", now).toArray());
  }

  pendingEvents(): QueuedEvent[] {
    return this.#queued(this.#sql.exec<InboxRow>("SELECT id, event, received_at, attempts FROM inbox ORDER BY position").toArray());
  }

  #queued(rows: InboxRow[]): QueuedEvent[] {
    const events: QueuedEvent[] = [];
    for (const row of rows) {
      const parsed = parseStoredJson(InboxEvent, row.event);
      if (!parsed.ok) {
        // Stored by an incompatible version: it can never be processed; say so once and drop it.
        console.error("dropping an unreadable inbox event", row.id, parsed.reason);
        this.#claimedMemo = undefined;
        this.#sql.exec("DELETE FROM inbox WHERE id = ?", row.id);
        continue;
      }
      events.push({ id: row.id, receivedAt: row.received_at, attempts: row.attempts, event: parsed.value });
    }
    return events;
  }

  // ── state ──────────────────────────────────────────────────────────────

  /** A state value, parsed with its schema; a value that does not parse is treated as absent (and logged). */
  read<S extends z.ZodType>(key: string, schema: S): z.infer<S> | undefined {
    return this.#state.read(key, schema);
  }

  write(key: string, value: unknown): void {
    this.#state.write(key, value);
  }

  delete(key: string): void {
    this.#state.delete(key);
  }

  // ── deadlines ──────────────────────────────────────────────────────────

  /** Adds or moves a deadline; the same id never makes two. */
  setDeadline(deadline: Deadline): void {
    this.#earliestMemo = undefined;
    this.#sql.exec(
      "INSERT INTO deadlines (id, kind, due_at, payload) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at, payload = excluded.payload",
      deadline.id,
      deadline.kind,
      deadline.dueAt,
      JSON.stringify(deadline.payload),
    );
  }

  deleteDeadline(id: string): void {
    this.#earliestMemo = undefined;
    this.#sql.exec("DELETE FROM deadlines WHERE id = ?", id);
  }

  getDeadline(id: string): Deadline | undefined {
    return this.#deadlines(this.#sql.exec<DeadlineRow>("SELECT id, kind, due_at, payload FROM deadlines WHERE id = ?", id).toArray())[0];
  }

  dueDeadlines(now = Date.now()): Deadline[] {
    return this.#deadlines(this.#sql.exec<DeadlineRow>("SELECT id, kind, due_at, payload FROM deadlines WHERE due_at <= ? ORDER BY due_at", now).toArray());
  }

  deadlines(): Deadline[] {
    return this.#deadlines(this.#sql.exec<DeadlineRow>("SELECT id, kind, due_at, payload FROM deadlines ORDER BY due_at").toArray());
  }

  earliestDeadline(): number | undefined {
    this.#earliestMemo ??= { at: this.#sql.exec<{ at: number | null }>("SELECT MIN(due_at) AS at FROM deadlines").toArray()[0]?.at ?? null };
    return this.#earliestMemo.at ?? undefined;
  }

  #deadlines(rows: DeadlineRow[]): Deadline[] {
    const deadlines: Deadline[] = [];
    for (const row of rows) {
      const payload = parseStoredJson(z.unknown(), row.payload);
      const parsed = payload.ok ? parseStoredValue(Deadline, { id: row.id, kind: row.kind, dueAt: row.due_at, payload: payload.value }) : payload;
      if (parsed.ok) deadlines.push(parsed.value);
      else {
        console.error("dropping an unreadable deadline", row.id, parsed.reason);
        this.deleteDeadline(row.id);
      }
    }
    return deadlines;
  }

  // ── staged outcomes ────────────────────────────────────────────────────

  stage(toolCallId: string, outcome: ToolOutcome, now = Date.now()): void {
    this.#stagedMemo = undefined;
    this.#sql.exec(
      "INSERT INTO staged_outcomes (call_id, outcome, staged_at) VALUES (?, ?, ?) ON CONFLICT(call_id) DO UPDATE SET outcome = excluded.outcome, staged_at = excluded.staged_at",
      toolCallId,
      JSON.stringify(outcome),
      now,
    );
  }

  unstage(toolCallId: string): void {
    this.#stagedMemo = undefined;
    this.#sql.exec("DELETE FROM staged_outcomes WHERE call_id = ?", toolCallId);
  }

  /** Whether any outcome is staged (a transition a crash may have cut short). */
  hasStaged(): boolean {
    this.#stagedMemo ??= this.#sql.exec<{ one: number }>("SELECT 1 AS one FROM staged_outcomes LIMIT 1").toArray().length > 0;
    return this.#stagedMemo;
  }

  staged(toolCallId: string): StagedOutcome | undefined {
    return this.#staged(this.#sql.exec<StagedRow>("SELECT call_id, outcome, staged_at FROM staged_outcomes WHERE call_id = ?", toolCallId).toArray())[0];
  }

  allStaged(): StagedOutcome[] {
    return this.#staged(this.#sql.exec<StagedRow>("SELECT call_id, outcome, staged_at FROM staged_outcomes ORDER BY staged_at").toArray());
  }

  #staged(rows: StagedRow[]): StagedOutcome[] {
    return rows.flatMap((row) => {
      const parsed = parseStoredJson(ToolOutcome, row.outcome);
      if (parsed.ok) return [{ toolCallId: row.call_id, outcome: parsed.value, stagedAt: row.staged_at }];
      // Never delivered as something it is not: the call stays as D1 has it (pending calls expire), and the row goes.
      console.error("dropping an unreadable staged outcome", row.call_id, parsed.reason);
      this.unstage(row.call_id);
      return [];
    });
  }
}
