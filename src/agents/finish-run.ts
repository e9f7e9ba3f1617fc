/**
 * The end of a run, exactly once. In one storage transaction: the
 * consciousness is saved (completed runs), the run's inbox events are done
 * (a failed run keeps them on its record), the journal is cleared, the
 * final run record is queued, and so is the answer to each task another
 * agent gave the run. The record then goes to D1; if that fails the
 * alarm writes it again (a `run_record` deadline) and nothing is run twice.
 */
import type { ModelMessage } from "ai";
import { z } from "zod";
import { getDatabase } from "../db/client";
import type { RunNote, RunToolCall } from "../db/runs";
import { runs } from "../db/schema";
import { parentRunIdOf } from "../db/run-trees";
import type { AppEnv } from "../env";
import type { AgentStorage } from "./agent-storage";
import { compactToolResults, trimConsciousness } from "./consciousness";
import type { ActiveRun, CycleJournal, StepRecord } from "./cycle-journal";
import type { InboxEvent } from "./inbox-event";
import { queueSubagentAnswers } from "./subagent-answers";
import { queueNotification } from "../webhooks/event-notifier";
import type { WebhookEvent } from "../webhooks/webhook-event";

export const StoredRunRecord = z.object({
  runId: z.string(),
  agentId: z.string(),
  agentEntityId: z.string(),
  status: z.enum(["completed", "failed", "interrupted"]),
  trigger: z.array(z.unknown()),
  steps: z.array(z.unknown()),
  toolCalls: z.array(z.unknown()),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }),
  error: z.string().nullable(),
  notes: z.array(z.unknown()),
  d1Statements: z.number().nullable(),
  finishedAt: z.string(),
});
export type StoredRunRecord = z.infer<typeof StoredRunRecord>;

const recordKey = (runId: string) => `run_record:${runId}`;
/** Retries of a record that does not reach D1: backoff, then given up (logged). */
const maxRecordAttempts = 8;
const recordBackoffMs = (attempt: number) => Math.min(300_000, 5_000 * 2 ** (attempt - 1));

export type RunEnd = {
  /** `interrupted`: ended early for newer messages (double texting); its events go back in the queue. */
  status: "completed" | "failed" | "interrupted";
  error?: string;
  /** Every model message of the run (completed runs: what the consciousness keeps). */
  messages?: ModelMessage[];
  records: StepRecord[];
  /** Calls that never finished (a failed run's open calls), shown on the record as failed. */
  unfinished?: RunToolCall[];
  d1Statements: number | null;
  /** An event the agent queues itself with the end (a reflection pass), in the same transaction. */
  followUp?: { id: string; event: InboxEvent };
  /** The spaces the run was announced to: `run.completed`/`run.failed` reach their webhook subscriptions too. */
  spaceIds?: string[];
};

/** `run.completed` / `run.failed` for webhook subscriptions. */
function runEvent(agent: { id: string; name: string }, record: StoredRunRecord, status: "completed" | "failed", spaceIds: string[]): WebhookEvent {
  return {
    id: `evt_${record.runId}_${status}`,
    type: status === "completed" ? "run.completed" : "run.failed",
    timestamp: record.finishedAt,
    data: {
      agentId: agent.id,
      agentName: agent.name,
      runId: record.runId,
      status,
      error: record.error,
      finishedAt: record.finishedAt,
      usage: record.usage,
      toolCallCount: record.toolCalls.length,
      spaceIds,
      runUrl: `/api/runs/${record.runId}`,
    },
  };
}

/** Commits the end of the run and returns the record to write to D1. */
export function commitRunEnd(
  storage: AgentStorage,
  journal: CycleJournal,
  agent: { id: string; entityId: string; name: string; consciousnessTokens: number },
  run: ActiveRun,
  end: RunEnd,
): { record: StoredRunRecord; answers: string[]; eventId?: string } {
  // Notes added from outside the attempt (an operator's) are merged in first.
  journal.saveRun(run);
  const trigger = storage.claimed(run.runId).map((queued) => ({ id: queued.id, receivedAt: queued.receivedAt, attempt: run.attempt, ...queued.event }));
  const record: StoredRunRecord = {
    runId: run.runId,
    agentId: agent.id,
    agentEntityId: agent.entityId,
    status: end.status,
    trigger,
    steps: end.records.map((entry) => entry.step),
    toolCalls: [...end.records.flatMap((entry) => entry.toolCalls), ...(end.unfinished ?? [])],
    usage: run.usage,
    error: end.error ?? null,
    notes: run.notes,
    d1Statements: end.d1Statements,
    finishedAt: new Date().toISOString(),
  };
  let answers: string[] = [];
  // An interrupted run is not over: it starts again with its events.
  const event = end.status === "interrupted" ? undefined : runEvent(agent, record, end.status, end.spaceIds ?? []);
  storage.transaction(() => {
    if (event) queueNotification(storage, event, end.spaceIds ?? []);
    // Tasks other agents gave this run get their answer (queued here, sent after).
    answers = end.status === "interrupted" ? [] : queueSubagentAnswers(storage, agent, run, { status: end.status, error: end.error, records: end.records });
    if (end.status !== "failed" && end.messages) {
      storage.write("consciousness", trimConsciousness(compactToolResults(end.messages), agent.consciousnessTokens));
    }
    if (end.status === "interrupted") storage.requeue(run.runId);
    else storage.complete(run.runId);
    if (end.followUp) storage.enqueue(end.followUp.event, end.followUp.id);
    journal.clear(run.runId);
    storage.write(recordKey(run.runId), record);
    storage.setDeadline({ id: recordKey(run.runId), kind: "run_record", dueAt: Date.now() + recordBackoffMs(1), payload: { runId: run.runId, attempt: 1 } });
  });
  return { record, answers, eventId: event?.id };
}

/** A note for a run whose record still waits for D1 (queued by `commitRunEnd`): kept with the record, so its write carries it. False when none waits. */
export function noteOnQueuedRecord(storage: AgentStorage, runId: string, note: RunNote): boolean {
  const record = storage.read(recordKey(runId), StoredRunRecord);
  if (!record) return false;
  storage.write(recordKey(runId), { ...record, notes: [...record.notes, note] });
  return true;
}

/** Writes a finished run's record to D1 (an upsert: the start row may or may not be there). True once it landed. */
export async function writeRunRecord(env: AppEnv, storage: AgentStorage, record: StoredRunRecord): Promise<boolean> {
  const values = {
    status: record.status,
    trigger: record.trigger,
    steps: record.steps,
    toolCalls: record.toolCalls,
    usage: record.usage,
    error: record.error,
    notes: record.notes,
    d1Statements: record.d1Statements,
    finishedAt: record.finishedAt,
  };
  try {
    await getDatabase(env.DB)
      .insert(runs)
      .values({ id: record.runId, agentId: record.agentId, agentEntityId: record.agentEntityId, parentRunId: parentRunIdOf(record.trigger), ...values })
      .onConflictDoUpdate({ target: runs.id, set: values });
  } catch (error) {
    console.error("could not write the run record; the alarm will try again", record.runId, error);
    return false;
  }
  storage.transaction(() => {
    storage.delete(recordKey(record.runId));
    storage.deleteDeadline(recordKey(record.runId));
  });
  return true;
}

/** From the alarm: a record that did not reach D1 is written again, with backoff. */
export async function retryRunRecord(env: AppEnv, storage: AgentStorage, runId: string, attempt: number): Promise<void> {
  const record = storage.read(recordKey(runId), StoredRunRecord);
  if (!record) return storage.deleteDeadline(recordKey(runId));
  if (await writeRunRecord(env, storage, record)) return;
  if (attempt >= maxRecordAttempts) {
    console.error("giving up on a run record", runId);
    storage.delete(recordKey(runId));
    return storage.deleteDeadline(recordKey(runId));
  }
  storage.setDeadline({ id: recordKey(runId), kind: "run_record", dueAt: Date.now() + recordBackoffMs(attempt + 1), payload: { runId, attempt: attempt + 1 } });
}
