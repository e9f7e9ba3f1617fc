/**
 * `ask_agent` on a space's endpoint: the question is posted as the caller's
 * message (the route's own `postAsCaller`, mentioning the agent, which wakes
 * it), and the answer is what the run that took it says in this space: the
 * messages it sends here, as the caller may see them. The agent's stream is
 * opened before the message is posted, so its run cannot be missed. When the
 * deadline passes first, the tool error says so and the run goes on; its
 * reply is read later with `read_messages` after the question's seq. A call
 * of the run that waits on the caller is put to them as an elicitation
 * where their client takes one (`elicit-calls.ts`).
 *
 * As a task (`face-tasks.ts`), the question is only delivered here; the
 * reply is `spaceReply`, read when the task's result is asked for.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { postAsCaller } from "../api/messages";
import { getDatabase } from "../db/client";
import { listAgentMembers } from "../db/spaces";
import { ApiError } from "../errors";
import { fullMessage, redactMessage } from "../protocol/message";
import { spaceStub } from "../spaces/space-stub";
import { AgentEvents } from "./agent-events";
import { offerWaitingCall } from "./elicit-calls";
import type { FaceContext } from "./face-context";
import { followRun, type RunFollowed } from "./follow-run";
import { callerTraceparent, progressReporter, type ToolExtra } from "./progress-reporter";
import { traceparentHeader } from "../telemetry/trace-context";
import { toolAnswer, toolError } from "./tool-answer";

export type AskInSpaceInput = { agentId: string; text: string; entityId?: string; timeoutSeconds: number };

/** A question posted in a space: the agent it was put to, and the message. */
export type SpaceQuestion = { agentId: string; spaceId: string; questionId: string; questionSeq: number; timeoutSeconds: number };

/** How many of the messages after the question are read to find the reply (its run's own, by id). */
const replyWindow = 200;

/** The agent a space's `ask_agent` names (its agent id or its entity id), if it is a member. */
export async function agentInSpace(context: FaceContext, spaceId: string, agentId: string) {
  const agents = await listAgentMembers(getDatabase(context.c.env.DB), spaceId);
  const agent = agents.find((member) => member.agentId === agentId || member.entityId === agentId);
  if (!agent) throw new ApiError(404, "not_found", `No agent "${agentId}" is a member of space "${spaceId}" (give its agent id or its entity id)`);
  return agent;
}

/** Posts the question to `agent` (found with `agentInSpace`); a stream opened on the agent before sees the run it starts. */
export async function postSpaceQuestion(
  context: FaceContext,
  spaceId: string,
  input: AskInSpaceInput,
  agent: { agentId: string; entityId: string },
  extra: ToolExtra,
): Promise<SpaceQuestion> {
  const traceparent = callerTraceparent(extra, context.c.req.header(traceparentHeader));
  const question = await postAsCaller(context.c, context.caller, spaceId, { text: input.text, entityId: input.entityId, mentions: [agent.entityId], traceparent });
  return { agentId: agent.agentId, spaceId, questionId: question.id, questionSeq: question.seq, timeoutSeconds: input.timeoutSeconds };
}

/** The event id the question wakes its agent with: the run that takes it names it in its trigger. */
export const spaceQuestionEvent = (question: Pick<SpaceQuestion, "questionId">) => `evt_${question.questionId}`;

export async function askInSpace(context: FaceContext, spaceId: string, input: AskInSpaceInput, extra: ToolExtra): Promise<CallToolResult> {
  const agent = await agentInSpace(context, spaceId, input.agentId);
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  const events = await AgentEvents.open(context.c.env, agent.agentId);
  try {
    const question = await postSpaceQuestion(context, spaceId, input, agent, extra);
    const followed = await followRun(events, {
      eventId: spaceQuestionEvent(question),
      messageId: question.questionId,
      spaceId,
      deadline,
      signal: extra.signal,
      progress: progressReporter(extra),
      namesTools: context.caller.kind === "secret",
      onWaiting: (callId) => offerWaitingCall(context, callId, extra.requestId),
    });
    return await spaceReply(context, question, followed);
  } finally {
    events.close();
  }
}

/** What `ask_agent` answers once its wait ended: the reply, or why there is none yet. */
export async function spaceReply(context: FaceContext, question: SpaceQuestion, followed: RunFollowed): Promise<CallToolResult> {
  const details = { questionId: question.questionId, questionSeq: question.questionSeq };
  const later = `Read the reply later with read_messages {"afterSeq": ${question.questionSeq}} (your question is message ${question.questionId}, seq ${question.questionSeq})`;
  switch (followed.kind) {
    case "refused":
      return toolError("loop_detected", `The agent was not woken: ${followed.reason}`, details);
    case "aborted":
      return toolError("cancelled", `The wait was cancelled; the agent's work goes on. ${later}`, details);
    case "deadline":
    case "closed": {
      const run = followed.runId ? `Its run ${followed.runId} goes on` : "No run has taken the question yet; it waits in the agent's inbox";
      const why = followed.kind === "deadline" ? `The agent did not finish within ${question.timeoutSeconds} s` : "The agent's stream closed before its run ended";
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
      const after = sent.size > 0 ? await spaceStub(context.c.env, question.spaceId).readMessages(question.questionSeq, replyWindow) : [];
      const show = context.caller.kind === "secret" ? fullMessage : redactMessage;
      const messages = after.filter((message) => sent.has(message.id)).map(show);
      const text = messages.map((message) => message.text ?? "").join("\n\n");
      return toolAnswer(
        { runId: followed.runId, status: followed.status, ...details, reply: text, messages },
        messages.length > 0 ? text : "The agent finished without replying in this space.",
      );
    }
  }
}
