/**
 * `ask_agent` on an agent's endpoint: the question goes into the agent's
 * inbox as an `external` event (as `POST /api/agents/:agentId/inbox` puts
 * one), and the answer is the final answer of the run that takes it, read
 * as a sub-agent's is (`finalAnswer`: a `final_report`, else the text of its
 * last step that has text). When the deadline passes first, the tool error
 * says so and the run goes on; its record is read later with `get_run`.
 *
 * As a task (`face-tasks.ts`), the question is only delivered here; the
 * answer is `agentReply`, read when the task's result is asked for.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { agentStub } from "../agents/agent-stub";
import { finalAnswer } from "../agents/subagent-answers";
import { getDatabase } from "../db/client";
import { getRun, type Run } from "../db/runs";
import { AgentEvents } from "./agent-events";
import type { FaceContext } from "./face-context";
import { followRun, type RunFollowed } from "./follow-run";
import { callerTraceparent, progressReporter, type ToolExtra } from "./progress-reporter";
import { traceparentHeader, traceparentOf } from "../telemetry/trace-context";
import { toolAnswer, toolError } from "./tool-answer";

export type AskAgentTaskInput = { text: string; timeoutSeconds: number };

/** A run record's steps, each with its tool calls, as the journal keeps them (what `finalAnswer` reads). */
function stepRecordsOf(run: Run) {
  return run.steps.map((step) => ({ step, toolCalls: run.toolCalls.filter((call) => call.stepNumber === step.stepNumber) }));
}

/** Puts the question in the agent's inbox; the event id names it in the trigger of the run that takes it. */
export async function deliverAgentQuestion(context: FaceContext, agentId: string, text: string, extra: ToolExtra): Promise<string> {
  const eventId = `evt_mcp_${crypto.randomUUID().replaceAll("-", "")}`;
  const hop = context.c.get("hop");
  // The caller's trace context, checked as the inbox route checks it: the run goes on in the caller's trace.
  const traced = traceparentOf(callerTraceparent(extra, context.c.req.header(traceparentHeader)));
  await agentStub(context.c.env, agentId).deliver(
    { type: "external", data: { source: "mcp", question: text }, ...(hop > 0 && { hop }), ...traced },
    eventId,
    new URL(context.c.req.url).origin,
  );
  return eventId;
}

export async function askAgentTask(context: FaceContext, agentId: string, input: AskAgentTaskInput, extra: ToolExtra): Promise<CallToolResult> {
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  const events = await AgentEvents.open(context.c.env, agentId);
  try {
    const eventId = await deliverAgentQuestion(context, agentId, input.text, extra);
    const followed = await followRun(events, { eventId, deadline, signal: extra.signal, progress: progressReporter(extra), namesTools: true });
    return await agentReply(context, eventId, input.timeoutSeconds, followed);
  } finally {
    events.close();
  }
}

/** What `ask_agent` answers once its wait ended: the run's final answer, or why there is none yet. */
export async function agentReply(context: FaceContext, eventId: string, timeoutSeconds: number, followed: RunFollowed): Promise<CallToolResult> {
  const later = (runId: string | undefined) =>
    runId ? `Its run ${runId} goes on: read it later with get_run {"runId": "${runId}"}` : `No run has taken the question (event ${eventId}) yet; it waits in the agent's inbox`;
  switch (followed.kind) {
    case "refused":
      return toolError("loop_detected", `The agent was not woken: ${followed.reason}`, { eventId });
    case "aborted":
      return toolError("cancelled", "The wait was cancelled; the agent's work goes on", { eventId });
    case "deadline":
      return toolError("deadline_exceeded", `The agent did not finish within ${timeoutSeconds} s. ${later(followed.runId)}.`, {
        eventId,
        ...(followed.runId && { runId: followed.runId }),
      });
    case "closed":
      return toolError("stream_closed", `The agent's stream closed before its run ended. ${later(followed.runId)}.`, { eventId });
    case "finished": {
      if (followed.status === "failed")
        return toolError("run_failed", `The agent's run ${followed.runId} failed: ${followed.error ?? "no reason given"}`, { runId: followed.runId });
      const run = await getRun(getDatabase(context.c.env.DB), followed.runId);
      const { answer, report } = run ? finalAnswer(stepRecordsOf(run)) : { answer: null, report: undefined };
      return toolAnswer(
        { runId: followed.runId, status: followed.status, answer, ...(report !== undefined && { report }) },
        answer ?? "The agent finished without a final answer.",
      );
    }
  }
}
