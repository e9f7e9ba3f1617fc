/**
 * A caller's message to an agent's A2A endpoint, taken in: without `taskId`
 * it is posted into its conversation (a space) as the caller's, mentioning
 * the agent, and the run that takes it is the task; with the `taskId` of an
 * `input-required` task it answers the call the task waits on, through the
 * result route's own path (`mayAnswer`, then `answerPendingCall`). The
 * agent's events are open from before either, so nothing is missed.
 */
import { postAsCaller } from "../api/messages";
import { mayAnswer } from "../api/who-may-answer";
import { answerPendingCall } from "../api/answer-pending-call";
import { AgentEvents } from "../mcp-face/agent-events";
import type { Message, OutPart, SendMessageParams } from "./a2a-types";
import { conversationFor, speakerOf } from "./conversation";
import { waitForRun } from "./follow-task";
import { RpcError, rpcErrorCodes, taskNotFound } from "./json-rpc";
import { pushConfigOf, storePushConfig } from "./push-config-methods";
import type { A2aRequest } from "./serve-a2a";
import { loadTask, openCalls, taskState } from "./task-view";

/** How long a run may take to start on a message before the answer says it waits in the inbox. */
const startWaitMs = 30_000;

/** What a message says, as the text of the conversation's message. */
function textOf(message: Message): string {
  return message.parts
    .map((part) => {
      if (part.text !== undefined) return part.text;
      if (part.data !== undefined) return `\`\`\`json\n${JSON.stringify(part.data, null, 2)}\n\`\`\``;
      if (part.url !== undefined) return `${part.filename ?? "A file"}: ${part.url}`;
      throw new RpcError(rpcErrorCodes.contentTypeNotSupported, "Inline file bytes (raw parts) are not supported: give the file as a url part");
    })
    .join("\n\n");
}

/** An answer to a waiting call: one data part is the result as it is; text parts are it as a string. */
function answerOf(message: Message): unknown {
  const [first, ...rest] = message.parts;
  if (rest.length === 0 && first.data !== undefined) return first.data;
  if (message.parts.every((part) => part.text !== undefined)) return message.parts.map((part) => part.text).join("\n\n");
  throw new RpcError(rpcErrorCodes.invalidParams, "Invalid parameters: answer a waiting call with one data part (the result) or with text");
}

export type Started = { events: AgentEvents; taskId: string; contextId: string; userMessage?: Message };

/** Posts the message (or answers the call it waits on); the events are open from before that, so nothing is missed. */
export async function begin(request: A2aRequest, params: SendMessageParams, signal: AbortSignal): Promise<Started | { message: unknown }> {
  const { message } = params;
  if (message.role !== "ROLE_USER") throw new RpcError(rpcErrorCodes.invalidParams, "Invalid parameters: message.role: a caller's message is ROLE_USER");
  const push = pushConfigOf(request, params.configuration?.taskPushNotificationConfig);
  const started = message.taskId !== undefined ? await answerTask(request, message, message.taskId) : await startTask(request, message, signal);
  // Stored once the task exists: what it did before is in this answer, what it does after is pushed.
  if (push && "taskId" in started) {
    try {
      await storePushConfig(request, started, push);
    } catch (error) {
      started.events.close();
      throw error;
    }
  }
  return started;
}

async function startTask(request: A2aRequest, message: Message, signal: AbortSignal): Promise<Started | { message: unknown }> {
  const { c, agent, caller } = request;
  const text = textOf(message);
  const speaker = await speakerOf(c, agent, caller);
  const contextId = await conversationFor(c, agent, caller, speaker, message.contextId);
  const events = await AgentEvents.open(c.env, agent.id);
  try {
    const posted = await postAsCaller(c, caller, contextId, { text, ...(caller.kind === "secret" && { entityId: speaker }), mentions: [agent.entityId] });
    const start = await waitForRun(events, posted.id, Date.now() + startWaitMs, signal);
    if (start.kind === "started") return { events, taskId: start.runId, contextId, userMessage: message };
    events.close();
    if (start.kind === "refused") throw new RpcError(rpcErrorCodes.internalError, `The agent was not woken: ${start.reason}`);
    // No run took the message in time (the agent is busy): it waits in the inbox; the answer says so, as a message.
    return {
      message: {
        messageId: `${posted.id}-queued`,
        contextId,
        role: "ROLE_AGENT",
        parts: [{ text: "Your message waits in the agent's inbox: no run has started on it yet. Send again on this contextId later, or read the conversation." }],
      },
    };
  } catch (error) {
    events.close();
    throw error;
  }
}

/** The caller answers the call an `input-required` task waits on. */
async function answerTask(request: A2aRequest, message: Message, taskId: string): Promise<Started> {
  const { c, agent, caller } = request;
  const record = await loadTask(c.env, agent, caller, taskId);
  if (!record) throw taskNotFound(taskId);
  if (message.contextId !== undefined && message.contextId !== record.contextId)
    throw new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: task "${taskId}" is not in context "${message.contextId}"`);
  const state = taskState(record);
  if (state !== "TASK_STATE_INPUT_REQUIRED") {
    throw new RpcError(
      rpcErrorCodes.unsupportedOperation,
      `Task "${taskId}" is ${state}, not waiting for input: start a new task with a message on its contextId (without taskId)`,
    );
  }
  const wanted = typeof message.metadata?.toolCallId === "string" ? message.metadata.toolCallId : undefined;
  const open = openCalls(record).filter((call) => call.accountKey === null);
  const call = wanted === undefined ? open[0] : open.find((entry) => entry.toolCallId === wanted);
  if (!call) throw new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: metadata.toolCallId "${wanted}" names no call this task waits on`);
  const permission = await mayAnswer(c.env, caller, call, call.toolCallId);
  if (!permission.ok) throw new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: ${permission.reason}`);
  const value = answerOf(message);
  const events = await AgentEvents.open(c.env, agent.id);
  try {
    await answerPendingCall(c, call, { type: "ok", value });
  } catch (error) {
    events.close();
    throw error;
  }
  return { events, taskId, contextId: record.contextId };
}

/** A part the caller sent, as the task's history shows it. */
export function outPart(part: Message["parts"][number]): OutPart {
  if (part.text !== undefined) return { text: part.text };
  if (part.url !== undefined) return { url: part.url, ...(part.mediaType && { mediaType: part.mediaType }), ...(part.filename && { filename: part.filename }) };
  return { data: part.data ?? null };
}
