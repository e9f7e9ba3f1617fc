/**
 * `ask_agent` on a space's endpoint: the question is posted as the caller's
 * message (the route's own `postAsCaller`, mentioning the agent, which wakes
 * it), and the answer is what the run that took it says in this space: the
 * messages it sends here, as the caller may see them. The agent's stream is
 * opened before the message is posted, so its run cannot be missed. When the
 * deadline passes first, the tool error says so and the run goes on; its
 * reply is read later with `read_messages` after the question's seq.
 */
import { listAgentMembers } from "../db/spaces";
import { getDatabase } from "../db/client";
import { ApiError } from "../errors";
import { postAsCaller } from "../api/messages";
import { fullMessage, redactMessage } from "../protocol/message";
import { spaceStub } from "../spaces/space-stub";
import { AgentEvents } from "./agent-events";
import type { FaceContext } from "./face-context";
import { followRun } from "./follow-run";
import { progressReporter, type ToolExtra } from "./progress-reporter";
import { toolAnswer, toolError } from "./tool-answer";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export type AskInSpaceInput = { agentId: string; text: string; entityId?: string; timeoutSeconds: number };

/** How many of the messages after the question are read to find the reply (its run's own, by id). */
const replyWindow = 200;

export async function askInSpace(context: FaceContext, spaceId: string, input: AskInSpaceInput, extra: ToolExtra): Promise<CallToolResult> {
  const { env } = context.c;
  const agents = await listAgentMembers(getDatabase(env.DB), spaceId);
  const agent = agents.find((member) => member.agentId === input.agentId || member.entityId === input.agentId);
  if (!agent) throw new ApiError(404, "not_found", `No agent "${input.agentId}" is a member of space "${spaceId}" (give its agent id or its entity id)`);
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  const events = await AgentEvents.open(env, agent.agentId);
  try {
    const question = await postAsCaller(context.c, context.caller, spaceId, { text: input.text, entityId: input.entityId, mentions: [agent.entityId] });
    const later = `Read the reply later with read_messages {"afterSeq": ${question.seq}} (your question is message ${question.id}, seq ${question.seq})`;
    const followed = await followRun(events, {
      eventId: `evt_${question.id}`,
      messageId: question.id,
      spaceId,
      deadline,
      signal: extra.signal,
      progress: progressReporter(extra),
      namesTools: context.caller.kind === "secret",
    });
    const details = { questionId: question.id, questionSeq: question.seq };
    switch (followed.kind) {
      case "refused":
        return toolError("loop_detected", `The agent was not woken: ${followed.reason}`, details);
      case "aborted":
        return toolError("cancelled", `The wait was cancelled; the agent's work goes on. ${later}`, details);
      case "deadline":
      case "closed": {
        const run = followed.runId ? `Its run ${followed.runId} goes on` : "No run has taken the question yet; it waits in the agent's inbox";
        const why = followed.kind === "deadline" ? `The agent did not finish within ${input.timeoutSeconds} s` : "The agent's stream closed before its run ended";
        return toolError(followed.kind === "deadline" ? "deadline_exceeded" : "stream_closed", `${why}. ${run}. ${later}.`, {
          ...details,
          ...(followed.runId && { runId: followed.runId }),
        });
      }
      case "finished": {
        if (followed.status === "failed") {
          return toolError("run_failed", `The agent's run ${followed.runId} failed: ${followed.error ?? "no reason given"}`, { ...details, runId: followed.runId });
        }
        const sent = new Set(followed.sentMessageIds);
        const after = sent.size > 0 ? await spaceStub(env, spaceId).readMessages(question.seq, replyWindow) : [];
        const show = context.caller.kind === "secret" ? fullMessage : redactMessage;
        const messages = after.filter((message) => sent.has(message.id)).map(show);
        const text = messages.map((message) => message.text ?? "").join("\n\n");
        return toolAnswer(
          { runId: followed.runId, status: followed.status, ...details, reply: text, messages },
          messages.length > 0 ? text : "The agent finished without replying in this space.",
        );
      }
    }
  } finally {
    events.close();
  }
}
