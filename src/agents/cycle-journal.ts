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
import { parseStoredJson } from "../db/parse-stored-json";
import { RunNote, RunStep, RunToolCall, RunUsage } from "../db/runs";
import { ToolOutcome } from "../tools";
import type { AgentStorage } from "./agent-storage";
import { RunTrace } from "../telemetry/run-trace";

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
  usage: RunUsage,
  notes: z.array(RunNote),
  /** Set while an attempt runs in a live instance; a fresh instance that finds it knows the attempt died. */
  running: z.boolean(),
  /** The run's trace, when tracing was on as it began: every attempt's spans go under its root span. */
  trace: RunTrace.optional(),
});
export type ActiveRun = z.infer<typeof ActiveRun>;

export const StepRecord = z.object({ step: RunStep, toolCalls: z.array(RunToolCall) });
export type StepRecord = z.infer<typeof StepRecord>;

const roles = new Set(["system", "user", "assistant", "tool"]);

/**
 * One model message as stored, checked for its shape (a role, and content
 * that is text or parts): the AI SDK checks every message in full against its
 * own schema when the prompt is used, so a second full check here (a union
 * tried message by message, on a consciousness read every cycle) would only
 * double the work: it was a fifth of a cycle's CPU.
 */
const StoredMessage = z.custom<ModelMessage>((value) => {
  if (typeof value !== "object" || value === null) return false;
  const { role, content } = value as { role?: unknown; content?: unknown };
  return (
    typeof role === "string" &&
    roles.has(role) &&
    (typeof content === "string" ||
      (Array.isArray(content) && content.every((part) => typeof part === "object" && part !== null && typeof (part as { type?: unknown }).type === "string")))
  );
}, "not a model message (a role, and text or parts)");

/** Model messages as stored (a step's, the consciousness). */
export const StoredMessages = z.array(StoredMessage);

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
    // The tables are the object's migrations' (`agent-migrations.ts`), run before anything reads them.
    this.#sql = sql;
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

  /**
   * The run's completed steps, to go on from. A step that does not parse
   * throws: going on without it would have the model do it again.
   */
  completedSteps(runId: string): { messages: ModelMessage[]; record: StepRecord }[] {
    return this.#sql
      .exec<{ step: number; messages: string; record: string }>("SELECT step, messages, record FROM journal_steps WHERE run_id = ? ORDER BY step", runId)
      .toArray()
      .map((row) => {
        const messages = parseStoredJson(StoredMessages, row.messages);
        const record = parseStoredJson(StepRecord, row.record);
        if (!messages.ok || !record.ok)
          throw new Error(
            `Step ${row.step} of run ${runId} is in the journal but cannot be read (${messages.ok ? "" : `messages: ${messages.reason}`}${!messages.ok && !record.ok ? "; " : ""}${record.ok ? "" : `record: ${record.reason}`})`,
          );
        return { messages: messages.value, record: record.value };
      });
  }

  /** What the run record shows of the completed steps, for a run that ends without going on: a step that does not parse is left out, and logged. */
  stepRecords(runId: string): StepRecord[] {
    return this.#sql
      .exec<{ step: number; record: string }>("SELECT step, record FROM journal_steps WHERE run_id = ? ORDER BY step", runId)
      .toArray()
      .flatMap((row) => {
        const record = parseStoredJson(StepRecord, row.record);
        if (record.ok) return [record.value];
        console.error("leaving an unreadable journaled step out of the run record", runId, row.step, record.reason);
        return [];
      });
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
    return row?.outcome == null ? outcome : storedOutcome(row.outcome, toolCallId);
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
    const parsed = parseStoredJson(JsonObject, row.args_schema);
    if (parsed.ok) return parsed.value;
    // Edited arguments are then checked against the tool's schema as configured now.
    console.error("unreadable kept schema of an approval", pendingId, parsed.reason);
    return undefined;
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
    return row?.outcome ? storedOutcome(row.outcome, pendingId) : undefined;
  }

  /** Forgets an open wait (an outcome already recorded stays). */
  closeWait(pendingId: string): void {
    this.#sql.exec("DELETE FROM journal_waits WHERE pending_id = ? AND outcome IS NULL", pendingId);
  }

  /** Every open wait of a run (a failed run closes them). */
  openWaits(runId: string): string[] {
    return this.#sql
      .exec<{ pending_id: string }>("SELECT pending_id FROM journal_waits WHERE run_id = ? AND outcome IS NULL", runId)
      .toArray()
      .map((row) => row.pending_id);
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

/**
 * A recorded outcome. One that does not parse is not taken for "no outcome
 * yet" (the call would run again) nor for anything it may have been: it
 * reads as a failure that says so, and is logged.
 */
function storedOutcome(text: string, toolCallId: string): ToolOutcome {
  const parsed = parseStoredJson(ToolOutcome, text);
  if (parsed.ok) return parsed.value;
  console.error("unreadable recorded outcome", toolCallId, parsed.reason);
  return { type: "error", message: "The outcome recorded for this call could not be read (stored by another version of the gateway); it is not run again", kind: "internal" };
}

function toCall(row: CallRow): JournalCall {
  const input: unknown = JSON.parse(row.input);
  return {
    toolCallId: row.call_id,
    modelToolCallId: row.model_call_id,
    runId: row.run_id,
    step: row.step,
    toolName: row.tool_name,
    input,
    startedAt: row.started_at,
    outcome: row.outcome === null ? undefined : storedOutcome(row.outcome, row.call_id),
    announced: row.announced === 1,
    cardSpaceId: row.card_space_id ?? undefined,
    cardMinimal: row.card_minimal === 1,
    dispatched: row.dispatched === 1,
  };
}

export function emptyUsage(): RunUsage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}
