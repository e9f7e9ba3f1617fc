/**
 * The tools of an agent's endpoint (`/mcp/agents/:agentId`, secret key):
 * `ask_agent` (a task into its inbox, its run's final answer), `get_run`
 * (a run record of this agent, as `GET /api/runs/:runId` shows it), and the
 * calls that wait on someone (`register-call-tools.ts`).
 */
import { z } from "zod";
import { runRecord } from "../api/agent-activity";
import { ApiError } from "../errors";
import { maxMessageChars } from "../protocol/message";
import { askAgentTask, deliverAgentQuestion } from "./ask-agent-task";
import { createTask, startingTask } from "./face-tasks";
import { AskTimeout } from "./ask-timeout";
import type { FaceContext } from "./face-context";
import type { FaceServer } from "./face-server";
import { registerCallTools } from "./register-call-tools";
import { answering, toolAnswer } from "./tool-answer";

export const RunId = z.string().min(1).max(100);

/** A run of this agent as the run route shows it; another agent's run is not found here. */
export async function agentRun(context: FaceContext, agentId: string, runId: string) {
  const record = await runRecord(context.c.env, new URL(context.c.req.url).origin, runId);
  if (!record || record.agentId !== agentId) throw new ApiError(404, "not_found", `Run "${runId}" not found for agent "${agentId}"`);
  return record;
}

export function registerAgentTools(server: FaceServer, context: FaceContext, agentId: string): void {
  server.tool(
    "ask_agent",
    {
      description: `Give this agent a task and wait for its final answer (the text of its run's last step, or its final_report). Waits up to timeoutSeconds (at most ${AskTimeout.max}); past that the run goes on and the error names it for get_run. Sends progress notifications while it waits when the call carries a progressToken. May run as a task: the question is delivered at once and the task reads its run.`,
      inputSchema: z.strictObject({ text: z.string().min(1).max(maxMessageChars).describe("The task or question"), timeoutSeconds: AskTimeout.schema }),
      task: (input, extra) =>
        startingTask(async () => createTask(context, { agentId, eventId: await deliverAgentQuestion(context, agentId, input.text, extra), timeoutSeconds: input.timeoutSeconds })),
    },
    (input, extra) => answering(() => askAgentTask(context, agentId, input, extra)),
  );

  server.tool(
    "get_run",
    {
      description: "A run of this agent: status, trigger, steps, tool calls, usage, error, and the calls still waiting for an answer.",
      inputSchema: z.strictObject({ runId: RunId }),
      annotations: { readOnlyHint: true },
    },
    (input) =>
      answering(async () => {
        const run = await agentRun(context, agentId, input.runId);
        return toolAnswer({ run }, `Run ${run.id}: ${run.status}.`);
      }),
  );

  registerCallTools(server, context);
}
