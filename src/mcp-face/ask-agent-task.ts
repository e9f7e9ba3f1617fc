/**
 * `ask_agent` on an agent's endpoint: the question goes into the agent's
 * inbox as an `external` event (as `POST /api/agents/:agentId/inbox` puts
 * one), and the answer is the final answer of the run that takes it, read
 * as a sub-agent's is (`finalAnswer`: a `final_report`, else the text of its
 * last step that has text). When the deadline passes first, the tool error
 * says so and the run goes on; its record is read later with `get_run`.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { agentStub } from "../agents/agent-stub";
import { finalAnswer } from "../agents/subagent-answers";
import { getDatabase } from "../db/client";
import { getRun, type Run } from "../db/runs";
import { AgentEvents } from "./agent-events";
import type { FaceContext } from "./face-context";
import { followRun } from "./follow-run";
import { progressReporter, type ToolExtra } from "./progress-reporter";
import { toolAnswer, toolError } from "./tool-answer";

export type AskAgentTaskInput = { text: string; timeoutSeconds: number };

/** A run record's steps, each with its tool calls, as the journal keeps them (what `finalAnswer` reads). */
function stepRecordsOf(run: Run) {
  return run.steps.map((step) => ({ step, toolCalls: run.toolCalls.filter((call) => call.stepNumber === step.stepNumber) }));
}

export async function askAgentTask(context: FaceContext, agentId: string, input: AskAgentTaskInput, extra: ToolExtra): Promise<CallToolResult> {
  const { env } = context.c;
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  const eventId = `evt_mcp_${crypto.randomUUID().replaceAll("-", "")}`;
  const events = await AgentEvents.open(env, agentId);
  try {
    const hop = context.c.get("hop");
    await agentStub(env, agentId).deliver({ type: "external", data: { source: "mcp", question: input.text }, ...(hop > 0 && { hop }) }, eventId, new URL(context.c.req.url).origin);
    const followed = await followRun(events, { eventId, deadline, signal: extra.signal, progress: progressReporter(extra), namesTools: true });
    const later = (runId: string | undefined) =>
      runId ? `Its run ${runId} goes on: read it later with get_run {"runId": "${runId}"}` : `No run has taken the question (event ${eventId}) yet; it waits in the agent's inbox`;
    switch (followed.kind) {
      case "refused":
        return toolError("loop_detected", `The agent was not woken: ${followed.reason}`, { eventId });
      case "aborted":
        return toolError("cancelled", "The wait was cancelled; the agent's work goes on", { eventId });
      case "deadline":
        return toolError("deadline_exceeded", `The agent did not finish within ${input.timeoutSeconds} s. ${later(followed.runId)}.`, {
          eventId,
          ...(followed.runId && { runId: followed.runId }),
        });
      case "closed":
        return toolError("stream_closed", `The agent's stream closed before its run ended. ${later(followed.runId)}.`, { eventId });
      case "finished": {
        if (followed.status === "failed")
          return toolError("run_failed", `The agent's run ${followed.runId} failed: ${followed.error ?? "no reason given"}`, { runId: followed.runId });
        const run = await getRun(getDatabase(env.DB), followed.runId);
        const { answer, report } = run ? finalAnswer(stepRecordsOf(run)) : { answer: null, report: undefined };
        return toolAnswer(
          { runId: followed.runId, status: followed.status, answer, ...(report !== undefined && { report }) },
          answer ?? "The agent finished without a final answer.",
        );
      }
    }
  } finally {
    events.close();
  }
}
