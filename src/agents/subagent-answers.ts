/**
 * The answer a sub-agent owes for each `agent_task` its run took: queued in
 * the same storage transaction that ends the run (a `subagent_answer`
 * deadline per task, so a crash after the end loses no answer), sent right
 * after the run record, and sent again from the alarm, with backoff, until
 * the caller's object takes it. The caller's object decides (its
 * pending-call owner): a call still waited for continues its cycle; one that
 * timed out gets a `tool_result` inbox event; the same answer again is a
 * duplicate. The answer is the run's final text: its last step's text (or the
 * last step that had text), or the result of a `final_report` call when the
 * run made one.
 */
import type { RunToolCall } from "../db/runs";
import { getDatabase } from "../db/client";
import type { AppEnv } from "../env";
import { getPendingCall, type ToolOutcome } from "../tools";
import { agentStub } from "./agent-stub";
import type { AgentStorage } from "./agent-storage";
import type { ActiveRun, StepRecord } from "./cycle-journal";
import type { SubagentAnswerDeadline } from "./subagent-answer-deadline";

const maxAttempts = 10;
const backoffMs = (attempt: number) => Math.min(10 * 60 * 1000, 2_000 * 2 ** (attempt - 1));
const deadlineId = (toolCallId: string) => `subagent_answer:${toolCallId}`;

/** The run's final answer: a `final_report` result if there is one, else the text of its last step that has text. */
export function finalAnswer(records: StepRecord[]): { answer: string | null; report?: unknown } {
  const report = records
    .flatMap((record) => record.toolCalls)
    .reverse()
    .find((call: RunToolCall) => call.toolName === "final_report" && call.status === "completed");
  const text = [...records].reverse().find((record) => record.step.text.trim().length > 0)?.step.text ?? null;
  return report ? { answer: text, report: report.result ?? report.args } : { answer: text };
}

/** Inside the run end's transaction: one answer deadline per task the run took. Returns their ids. */
export function queueSubagentAnswers(
  storage: AgentStorage,
  agent: { id: string; name: string },
  run: ActiveRun,
  end: { status: "completed" | "failed"; error?: string; records: StepRecord[] },
  now = Date.now(),
): string[] {
  const ids: string[] = [];
  for (const queued of storage.claimed(run.runId)) {
    if (queued.event.type !== "agent_task") continue;
    const { toolCallId, fromAgentId } = queued.event;
    const outcome: ToolOutcome =
      end.status === "completed"
        ? { type: "ok", value: { ...finalAnswer(end.records), agentId: agent.id, runId: run.runId } }
        : { type: "error", message: `Agent "${agent.name}" could not finish the task: ${end.error ?? "its run failed"}`, kind: "upstream" };
    storage.setDeadline({
      id: deadlineId(toolCallId),
      kind: "subagent_answer",
      dueAt: now + backoffMs(1),
      payload: { toolCallId, parentAgentId: fromAgentId, outcome, attempt: 1 },
    });
    ids.push(deadlineId(toolCallId));
  }
  return ids;
}

/** Sends a queued answer to the caller's object; on failure tries again later (from the alarm). */
export async function sendSubagentAnswer(
  env: AppEnv,
  storage: AgentStorage,
  deadline: SubagentAnswerDeadline,
  publish: (type: string, data: Record<string, unknown>) => void,
): Promise<void> {
  const { toolCallId, parentAgentId, outcome, attempt } = deadline.payload;
  try {
    const call = await getPendingCall(getDatabase(env.DB), toolCallId);
    if (call && (outcome.type === "ok" || outcome.type === "error")) {
      const caller = agentStub(env, parentAgentId);
      let answer = await caller.submitToolResult(call, outcome.type === "ok" ? { type: "ok", value: outcome.value } : { type: "error", message: outcome.message });
      // An answer the tool's resultSchema refuses fails the call (the caller reads why) rather than leaving it unanswered.
      if (answer.kind === "invalid_result") answer = await caller.submitToolResult(call, { type: "error", message: answer.message });
      publish("agent.task.answered", { toolCallId, parentAgentId, delivery: answer.kind });
    }
    storage.deleteDeadline(deadline.id);
  } catch (error) {
    if (attempt >= maxAttempts) {
      console.error("giving up on a sub-agent answer", toolCallId, error);
      storage.deleteDeadline(deadline.id);
      return;
    }
    storage.setDeadline({ ...deadline, dueAt: Date.now() + backoffMs(attempt + 1), payload: { ...deadline.payload, attempt: attempt + 1 } });
  }
}

/** Right after a run ended: sends the answers it queued. */
export async function sendQueuedAnswers(env: AppEnv, storage: AgentStorage, ids: string[], publish: (type: string, data: Record<string, unknown>) => void): Promise<void> {
  for (const id of ids) {
    const deadline = storage.getDeadline(id);
    if (deadline?.kind === "subagent_answer") await sendSubagentAnswer(env, storage, deadline, publish);
  }
}
