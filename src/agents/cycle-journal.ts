/**
 * The journal of the running cycle, in the agent object's storage, written as
 * things happen: the run itself (`active_run`: its trigger summary, step,
 * attempt, notes), each completed step (the model's messages and what the run
 * record shows of it) and each tool call of the current step, from the moment
 * it starts executing to its outcome. A fresh instance reads it to continue
 * the cycle where it stopped, so no call that ran or is pending is issued
 * again; a call open here is also where a result posted for it is delivered.
 */
import type { ModelMessage } from "ai";
import { z } from "zod";
import type { RunNote, RunStep, RunToolCall, RunUsage } from "../db/runs";
import { ToolOutcome } from "../tools/engine/tool-outcome";
import type { AgentStorage } from "./agent-storage";

const Usage = z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() });

export const ActiveRun = z.object({
  runId: z.string(),
  startedAt: z.string(),
  /** The user message the cycle started with (its inbox, as the model saw it). */
  userMessage: z.string(),
  hop: z.number().int().min(0),
  /** The entity whose message started the run (the first person's message among its events). */
  initiatorEntityId: z.string().optional(),
  /** 1 for the first attempt; a recovery or a retry after an error adds one. */
  attempt: z.number().int().min(1),
  /** The next attempt waits until then (backoff). */
  notBefore: z.number(),
  /** Steps completed so far (the index of the step being run). */
  step: z.number().int().min(0),
  /** A scripted model's place when the current step started, to replay a step cut off mid-stream. */
  scriptedTurn: z.number().int().min(0).optional(),
  usage: Usage,
  notes: z.array(
    z.object({
      at: z.string(),
      kind: z.enum(["recovered", "retried", "redone", "throttled", "refused", "superseded", "interrupted", "operator", "push_failed", "final_report"]),
      message: z.string(),
      /** A `final_report` note: the call that made it and the report itself. */
      toolCallId: z.string().optional(),
      report: z.unknown().optional(),
    }),
  ),
  /** Set while an attempt runs in a live instance; a fresh instance that finds it knows the attempt died. */
  running: z.boolean(),
});
export type ActiveRun = z.infer<typeof ActiveRun>;

export type StepRecord = { step: RunStep; toolCalls: RunToolCall[] };

export type JournalCall = {
  toolCallId: string;
  modelToolCallId: string;
  runId: string;
  step: number;
  toolName: string;
  input: unknown;
  startedAt: number;
  outcome: ToolOutcome | undefined;
  /** The call was announced (agent stream, webhook): a continuation does not announce it again. */
  announced: boolean;
  /** The space its card was posted to, if it has one. */
  cardSpaceId: string | undefined;
  /** Its card shows public-key clients only its id, name and status (decided once, from the resolved tool). */
  cardMinimal: boolean;
  /**
   * An approved call was handed to its tool (journaled before it ran): a
   * continuation after a restart does not run it again (at most once after a yes).
   */
  dispatched: boolean;
};

type CallRow = {
  call_id: string;
  model_call_id: string;
  run_id: string;
  step: number;
  tool_name: string;
  input: string;
  started_at: number;
  outcome: string | null;
  announced: number;
  card_space_id: string | null;
  card_minimal: number;
  dispatched: number;
};

const activeRunKey = "active_run";
const JsonObject = z.record(z.string(), z.unknown());

export class CycleJournal {
  readonly #sql: SqlStorage;

  constructor(
    sql: SqlStorage,
    private readonly storage: AgentStorage,
  ) {
    this.#sql = sql;
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
      card_space_id TEXT,
      card_minimal INTEGER NOT NULL DEFAULT 0,
      dispatched INTEGER NOT NULL DEFAULT 0
    )`);

    // Pending calls a call of this run waits on besides its own (an approval that gates it, calls it waits for).
    // An approval keeps the schema of the tool it gates: edited arguments are checked against it when answered.
    sql.exec("CREATE TABLE IF NOT EXISTS journal_waits (pending_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, outcome TEXT, args_schema TEXT)");
    // Objects made before these columns existed get them once (nothing else about the tables changed).
    const added: [table: string, column: string, definition: string][] = [
      ["journal_calls", "card_minimal", "INTEGER NOT NULL DEFAULT 0"],
      ["journal_calls", "dispatched", "INTEGER NOT NULL DEFAULT 0"],
      ["journal_waits", "args_schema", "TEXT"],
    ];
    const present = new Set(
      sql.exec<{ name: string; table_name: string }>("SELECT 'journal_calls' AS table_name, name FROM pragma_table_info('journal_calls') UNION ALL SELECT 'journal_waits', name FROM pragma_table_info('journal_waits')").toArray().map((row) => `${row.table_name}.${row.name}`),
    );
    for (const [table, column, definition] of added) {
      if (!present.has(`${table}.${column}`)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
    }
  }

  // ── the run ────────────────────────────────────────────────────────────

  active(): ActiveRun | undefined {
    return this.storage.read(activeRunKey, ActiveRun);
  }

  /**
   * Saves the run. Notes are append-only and may be added from outside the
   * attempt that holds `run` (an operator's action): notes already stored for
   * this run are kept, merged into `run`.
   */
  saveRun(run: ActiveRun): void {
    const stored = this.active();
    if (stored?.runId === run.runId) {
      const known = new Set(run.notes.map((note) => `${note.at} ${note.message}`));
      const missing = stored.notes.filter((note) => !known.has(`${note.at} ${note.message}`));
      if (missing.length > 0) run.notes = [...run.notes, ...missing].sort((a, b) => a.at.localeCompare(b.at));
    }
    this.storage.write(activeRunKey, run);
  }

  note(run: ActiveRun, kind: RunNote["kind"], message: string): void {
    run.notes.push({ at: new Date().toISOString(), kind, message });
    this.saveRun(run);
  }

  /** Forgets the run and everything journaled for it. */
  clear(runId: string): void {
    this.#sql.exec("DELETE FROM journal_steps WHERE run_id = ?", runId);
    this.#sql.exec("DELETE FROM journal_calls WHERE run_id = ?", runId);
    this.#sql.exec("DELETE FROM journal_waits WHERE run_id = ?", runId);
    if (this.active()?.runId === runId) this.storage.delete(activeRunKey);
  }

  // ── steps ──────────────────────────────────────────────────────────────

  completedSteps(runId: string): { messages: ModelMessage[]; record: StepRecord }[] {
    return this.#sql
      .exec<{ messages: string; record: string }>("SELECT messages, record FROM journal_steps WHERE run_id = ? ORDER BY step", runId)
      .toArray()
      .map((row) => ({ messages: JSON.parse(row.messages) as ModelMessage[], record: JSON.parse(row.record) as StepRecord }));
  }

  /** A step is done: its messages replace its calls, and the run moves on (atomically). */
  completeStep(run: ActiveRun, messages: ModelMessage[], record: StepRecord): void {
    this.storage.transaction(() => {
      this.#sql.exec(
        "INSERT INTO journal_steps (run_id, step, messages, record) VALUES (?, ?, ?, ?) ON CONFLICT(run_id, step) DO UPDATE SET messages = excluded.messages, record = excluded.record",
        run.runId,
        run.step,
        JSON.stringify(messages),
        JSON.stringify(record),
      );
      this.#sql.exec("DELETE FROM journal_calls WHERE run_id = ? AND step = ?", run.runId, run.step);
      run.step += 1;
      run.scriptedTurn = undefined;
      this.saveRun(run);
    });
  }

  // ── calls ──────────────────────────────────────────────────────────────

  /** Records that a call starts executing; returns false if it was already recorded. */
  callStarted(call: Omit<JournalCall, "outcome" | "announced" | "cardSpaceId" | "cardMinimal" | "dispatched">): boolean {
    // The position is the next one after every call recorded so far (one statement: SELECT inside the INSERT).
    const cursor = this.#sql.exec(
      "INSERT INTO journal_calls (call_id, model_call_id, run_id, step, position, tool_name, input, started_at) SELECT ?, ?, ?, ?, COALESCE(MAX(position), -1) + 1, ?, ?, ? FROM journal_calls WHERE true ON CONFLICT(call_id) DO NOTHING",
      call.toolCallId,
      call.modelToolCallId,
      call.runId,
      call.step,
      call.toolName,
      JSON.stringify(call.input ?? null),
      call.startedAt,
    );
    return cursor.rowsWritten > 0;
  }

  /** Records a call's outcome; the first one wins. Returns the outcome that stands. */
  callFinished(toolCallId: string, outcome: ToolOutcome): ToolOutcome {
    // The first outcome recorded wins, and the one stored is what the call returns (one statement for both).
    const row = this.#sql
      .exec<{ outcome: string | null }>("UPDATE journal_calls SET outcome = COALESCE(outcome, ?) WHERE call_id = ? RETURNING outcome", JSON.stringify(outcome), toolCallId)
      .toArray()[0];
    const stored = row?.outcome == null ? undefined : ToolOutcome.safeParse(JSON.parse(row.outcome));
    return stored?.success ? stored.data : outcome;
  }

  markAnnounced(toolCallId: string): void {
    this.#sql.exec("UPDATE journal_calls SET announced = 1 WHERE call_id = ?", toolCallId);
  }

  markCard(toolCallId: string, spaceId: string, minimal: boolean): void {
    this.#sql.exec("UPDATE journal_calls SET card_space_id = ?, card_minimal = ? WHERE call_id = ?", spaceId, minimal ? 1 : 0, toolCallId);
  }

  /** An approved call is about to run: from here on, a restart does not run it again. */
  markDispatched(toolCallId: string): void {
    this.#sql.exec("UPDATE journal_calls SET dispatched = 1 WHERE call_id = ?", toolCallId);
  }

  call(toolCallId: string): JournalCall | undefined {
    const row = this.#sql.exec<CallRow>("SELECT * FROM journal_calls WHERE call_id = ?", toolCallId).toArray()[0];
    return row ? toCall(row) : undefined;
  }

  /** A call of an unfinished step that has no outcome yet: a result for it belongs to the cycle, not the inbox. */
  isOpen(toolCallId: string): boolean {
    const row = this.#sql.exec<{ open: number }>("SELECT COUNT(*) AS open FROM journal_calls WHERE call_id = ? AND outcome IS NULL", toolCallId).toArray()[0];
    return (row?.open ?? 0) > 0;
  }

  // ── waits: pending calls other than the call itself (an approval, calls waited for) ──

  openWait(pendingId: string, runId: string, argsSchema?: Record<string, unknown>): void {
    this.#sql.exec(
      "INSERT INTO journal_waits (pending_id, run_id, args_schema) VALUES (?, ?, ?) ON CONFLICT(pending_id) DO NOTHING",
      pendingId,
      runId,
      argsSchema === undefined ? null : JSON.stringify(argsSchema),
    );
  }

  /** The input schema of the tool an approval gates, kept when it was asked. */
  argsSchemaOf(pendingId: string): Record<string, unknown> | undefined {
    const row = this.#sql.exec<{ args_schema: string | null }>("SELECT args_schema FROM journal_waits WHERE pending_id = ?", pendingId).toArray()[0];
    if (!row?.args_schema) return undefined;
    const parsed = JsonObject.safeParse(JSON.parse(row.args_schema));
    return parsed.success ? parsed.data : undefined;
  }

  isWaitOpen(pendingId: string): boolean {
    const row = this.#sql.exec<{ open: number }>("SELECT COUNT(*) AS open FROM journal_waits WHERE pending_id = ? AND outcome IS NULL", pendingId).toArray()[0];
    return (row?.open ?? 0) > 0;
  }

  /** Records a wait's outcome; the first one wins. */
  finishWait(pendingId: string, outcome: ToolOutcome): void {
    this.#sql.exec("UPDATE journal_waits SET outcome = ? WHERE pending_id = ? AND outcome IS NULL", JSON.stringify(outcome), pendingId);
  }

  waitOutcome(pendingId: string): ToolOutcome | undefined {
    const row = this.#sql.exec<{ outcome: string | null }>("SELECT outcome FROM journal_waits WHERE pending_id = ?", pendingId).toArray()[0];
    if (!row?.outcome) return undefined;
    const parsed = ToolOutcome.safeParse(JSON.parse(row.outcome));
    return parsed.success ? parsed.data : undefined;
  }

  /** Forgets an open wait (an outcome already recorded stays). */
  closeWait(pendingId: string): void {
    this.#sql.exec("DELETE FROM journal_waits WHERE pending_id = ? AND outcome IS NULL", pendingId);
  }

  /** Every open wait of a run (a failed run closes them). */
  openWaits(runId: string): string[] {
    return this.#sql.exec<{ pending_id: string }>("SELECT pending_id FROM journal_waits WHERE run_id = ? AND outcome IS NULL", runId).toArray().map((row) => row.pending_id);
  }

  /** The calls of one step, in the order they started. */
  calls(runId: string, step: number): JournalCall[] {
    return this.#sql.exec<CallRow>("SELECT * FROM journal_calls WHERE run_id = ? AND step = ? ORDER BY position", runId, step).toArray().map(toCall);
  }

  /** Every call of a run still journaled (the unfinished step's). */
  openCalls(runId: string): JournalCall[] {
    return this.#sql.exec<CallRow>("SELECT * FROM journal_calls WHERE run_id = ? ORDER BY position", runId).toArray().map(toCall);
  }
}

function toCall(row: CallRow): JournalCall {
  const outcome = row.outcome === null ? undefined : ToolOutcome.safeParse(JSON.parse(row.outcome));
  return {
    toolCallId: row.call_id,
    modelToolCallId: row.model_call_id,
    runId: row.run_id,
    step: row.step,
    toolName: row.tool_name,
    input: JSON.parse(row.input) as unknown,
    startedAt: row.started_at,
    outcome: outcome?.success ? outcome.data : undefined,
    announced: row.announced === 1,
    cardSpaceId: row.card_space_id ?? undefined,
    cardMinimal: row.card_minimal === 1,
    dispatched: row.dispatched === 1,
  };
}

export function emptyUsage(): RunUsage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}
