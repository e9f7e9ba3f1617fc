/**
 * A task as the protocol shows it, read only from durable state: the run
 * record in D1 (its trigger, steps, tool calls, notes, status), the run's
 * pending calls in D1, and the conversation's space. Nothing is kept in
 * memory between requests, so a task reads the same after the agent object
 * was evicted or restarted.
 *
 * A task is a run (task id = run id) that a message in one of this agent's
 * A2A conversations started. Its state: a running run with an open call
 * waiting on an account connection is `auth-required`, one with any other
 * open call (a `space` or `external` tool, an approval) is `input-required`,
 * else `working`; a finished run is `completed`, `failed`, or `canceled`
 * when the caller cancelled it over A2A.
 */
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { AgentRecord } from "../agents/agent-record";
import { finalAnswer } from "../agents/subagent-answers";
import type { AppEnv } from "../env";
import { getDatabase } from "../db/client";
import { getRun, type Run } from "../db/runs";
import { pendingToolCalls } from "../db/schema";
import { getSpace, isMember } from "../db/spaces";
import { type PendingCall, waitsOnSomeone } from "../tools";
import { a2aCancelReason } from "../webhooks/a2a-task-push";
import type { Artifact, OutMessage, OutPart, Task, TaskState } from "./a2a-types";
import { type A2aCaller, conversationKey } from "./conversation";

/** The reason a cancellation over A2A gives the run; its note is how a failed run reads as `canceled` (and its push says so). */
export const cancelReason = a2aCancelReason;

export type TaskRecord = { agent: AgentRecord; run: Run; contextId: string; calls: PendingCall[] };

const TriggerEntry = z.object({
  type: z.string(),
  spaceId: z.string().optional(),
  messageId: z.string().optional(),
  text: z.string().optional(),
  receivedAt: z.string().optional(),
});
const Trigger = z.array(z.looseObject(TriggerEntry.shape)).catch([]);
const SentMessage = z.object({ messageId: z.string(), spaceId: z.string() });

/** The run's trigger, as the space messages that started it. */
function triggerMessages(run: Run) {
  return Trigger.parse(run.trigger).filter((entry) => entry.type === "space_message" && entry.spaceId !== undefined);
}

/** The task `taskId` of this agent, if the caller may see it (a person: only in a conversation they are in). */
export async function loadTask(env: AppEnv, agent: AgentRecord, caller: A2aCaller, taskId: string): Promise<TaskRecord | undefined> {
  const database = getDatabase(env.DB);
  const run = await getRun(database, taskId);
  if (!run || run.agentId !== agent.id) return undefined;
  const contextId = triggerMessages(run)[0]?.spaceId;
  if (contextId === undefined) return undefined;
  const space = await getSpace(database, contextId);
  if (space?.metadata[conversationKey] !== agent.id) return undefined;
  if (caller.kind === "entity" && !(await isMember(database, contextId, caller.entityId))) return undefined;
  const calls = await database.select().from(pendingToolCalls).where(eq(pendingToolCalls.runId, run.id)).orderBy(asc(pendingToolCalls.createdAt));
  return { agent, run, contextId, calls };
}

const isOpen = (call: PendingCall) => call.status === "waiting" || call.status === "pending";

/** The run's open calls that wait on someone (what an `input-required` or `auth-required` task asks for); not its calls to sub-agents or remote agents. */
export function openCalls(record: TaskRecord): PendingCall[] {
  return record.run.status === "running" ? record.calls.filter((call) => isOpen(call) && waitsOnSomeone(call)) : [];
}

export function taskState(record: TaskRecord): TaskState {
  const { run } = record;
  switch (run.status) {
    case "completed":
      return "TASK_STATE_COMPLETED";
    case "failed":
      return run.notes.some((note) => note.kind === "operator" && note.message.endsWith(cancelReason)) ? "TASK_STATE_CANCELED" : "TASK_STATE_FAILED";
    case "interrupted":
      return "TASK_STATE_FAILED";
    case "running": {
      const open = openCalls(record);
      if (open.some((call) => call.accountKey !== null)) return "TASK_STATE_AUTH_REQUIRED";
      return open.length > 0 ? "TASK_STATE_INPUT_REQUIRED" : "TASK_STATE_WORKING";
    }
  }
}

function agentMessage(record: TaskRecord, messageId: string, parts: OutPart[]): OutMessage {
  return { messageId, contextId: record.contextId, taskId: record.run.id, role: "ROLE_AGENT", parts };
}

/** What an open call asks of the caller: which call, its arguments, and the result's schema when its tool has one. */
function question(record: TaskRecord, call: PendingCall): OutPart[] {
  const tool = record.agent.config.tools.find((entry) => entry.name === call.toolName);
  const waitsForAccount = call.accountKey !== null;
  const text = waitsForAccount
    ? `"${call.toolName}" waits for its person to connect their account (${call.accountKey}); it goes on once they have.`
    : call.kind === "approval"
      ? `"${call.toolName}" needs an approval: answer on this task with a data part {"approved": true} or {"approved": false, "reason": "…"}.`
      : `"${call.toolName}" needs an answer: reply on this task with a data part (or text) that is its result.`;
  return [
    { text },
    {
      data: {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        kind: call.kind,
        args: call.args,
        ...(call.expiresAt && { expiresAt: call.expiresAt }),
        ...(tool?.resultSchema && call.kind === "call" && { resultSchema: tool.resultSchema }),
      },
    },
  ];
}

/** The run's final answer: a `final_report` or its last text, else what it said in the conversation. */
function answerOf(record: TaskRecord, replies: { text: string }[]): Artifact | undefined {
  const { run } = record;
  const steps = run.steps.map((step) => ({ step, toolCalls: run.toolCalls.filter((call) => call.stepNumber === step.stepNumber) }));
  const { answer, report } = finalAnswer(steps);
  const text = answer ?? (replies.length > 0 ? replies.map((reply) => reply.text).join("\n\n") : undefined);
  const parts: OutPart[] = [...(text !== undefined ? [{ text }] : []), ...(report !== undefined ? [{ data: report }] : [])];
  return parts.length > 0 ? { artifactId: `${run.id}-answer`, name: "answer", parts } : undefined;
}

/** The task's messages, oldest first: the caller's messages that started it, what the agent said in the conversation, the calls it asked the caller and their answers. */
function historyOf(record: TaskRecord): { at: string; message: OutMessage }[] {
  const { run, contextId } = record;
  const entries: { at: string; message: OutMessage }[] = [];
  for (const trigger of triggerMessages(run)) {
    if (trigger.spaceId !== contextId || !trigger.messageId) continue;
    entries.push({
      at: trigger.receivedAt ?? run.createdAt,
      message: { messageId: trigger.messageId, contextId, taskId: run.id, role: "ROLE_USER", parts: [{ text: trigger.text ?? "" }] },
    });
  }
  for (const call of run.toolCalls) {
    if (call.toolName !== "send_message" || call.status !== "completed") continue;
    const sent = SentMessage.safeParse(call.result);
    const text = z.object({ text: z.string() }).safeParse(call.args);
    if (sent.success && sent.data.spaceId === contextId && text.success)
      entries.push({ at: call.startedAt, message: agentMessage(record, sent.data.messageId, [{ text: text.data.text }]) });
  }
  for (const call of record.calls) {
    entries.push({ at: call.createdAt, message: agentMessage(record, `${call.toolCallId}-asked`, question(record, call)) });
    if (call.status === "resolved" && call.resolvedAt) {
      entries.push({ at: call.resolvedAt, message: { messageId: `${call.toolCallId}-answered`, contextId, taskId: run.id, role: "ROLE_USER", parts: [{ data: call.result }] } });
    }
  }
  return entries.sort((a, b) => a.at.localeCompare(b.at));
}

export function taskOf(record: TaskRecord, historyLength?: number): Task {
  const { run, contextId } = record;
  const state = taskState(record);
  const history = historyOf(record).map((entry) => entry.message);
  const replies = history
    .filter((message) => message.role === "ROLE_AGENT" && message.parts.length === 1 && "text" in message.parts[0])
    .map((message) => ({ text: (message.parts[0] as { text: string }).text }));
  const artifact = state === "TASK_STATE_COMPLETED" ? answerOf(record, replies) : undefined;
  const open = openCalls(record);
  const statusMessage =
    state === "TASK_STATE_INPUT_REQUIRED" || state === "TASK_STATE_AUTH_REQUIRED"
      ? agentMessage(record, `${open[0].toolCallId}-asked`, question(record, open[0]))
      : state === "TASK_STATE_FAILED" && run.error
        ? agentMessage(record, `${run.id}-error`, [{ text: run.error }])
        : state === "TASK_STATE_COMPLETED" && artifact
          ? agentMessage(record, `${run.id}-answer`, artifact.parts)
          : undefined;
  const timestamps = [run.finishedAt, ...record.calls.map((call) => call.updatedAt), run.createdAt].filter((value): value is string => typeof value === "string");
  const latest = timestamps.sort().at(-1) ?? run.createdAt;
  const kept = historyLength === undefined ? history : historyLength === 0 ? [] : history.slice(-historyLength);
  return {
    id: run.id,
    contextId,
    status: { state, ...(statusMessage && { message: statusMessage }), timestamp: new Date(latest).toISOString() },
    ...(artifact && { artifacts: [artifact] }),
    ...(kept.length > 0 && { history: kept }),
  };
}
