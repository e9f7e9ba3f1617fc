/**
 * A caller's message to an agent's A2A endpoint, taken in: without `taskId`
 * it is posted into its conversation (a space) as the caller's, mentioning
 * the agent, and the run that takes it is the task; with the `taskId` of an
 * `input-required` task it answers the call the task waits on, through the
 * result route's own path (`mayAnswer`, then `answerPendingCall`). The
 * agent's events are open from before either, so nothing is missed.
 *
 * A message is taken once: before it is posted (or its answer given) it is
 * kept in D1 under its agent, sender and `messageId`
 * (`db/a2a-messages.ts`), with its fingerprint (`message-fingerprint.ts`).
 * The same message sent again (a retry after an answer that was lost, even
 * across a restart) answers with the task the first one made: its
 * conversation's message keeps the id chosen the first time, so it is never
 * posted twice, and its run is the one recorded, or found in D1 by its
 * trigger. The same `messageId` with other content is refused. A message
 * refused before anything was posted or answered is let go again.
 */
import { answerPendingCall } from "../api/answer-pending-call";
import { postAsCaller } from "../api/messages";
import { mayAnswer } from "../api/who-may-answer";
import { getDatabase } from "../db/client";
import {
  type A2aMessage,
  type A2aMessageKey,
  claimA2aMessage,
  forgetA2aMessage,
  getA2aMessage,
  markA2aMessagePosted,
  recordA2aMessageTask,
  runTriggeredBy,
} from "../db/a2a-messages";
import { ApiError } from "../errors";
import { createId } from "../ids";
import { AgentEvents } from "../mcp-face/agent-events";
import type { Message, OutPart, SendMessageParams } from "./a2a-types";
import { checkDestination, newConversationId, openConversation, speakerOf } from "./conversation";
import { waitForRun } from "./follow-task";
import { RpcError, rpcErrorCodes, taskNotFound } from "./json-rpc";
import { messageFingerprint, pushConfigIdOf, reusedMessageId, senderOf } from "./message-fingerprint";
import { pushConfigOf, storePushConfig } from "./push-config-methods";
import type { A2aRequest } from "./serve-a2a";
import { loadTask, openCalls, type TaskRecord, taskState } from "./task-view";

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
  const taken: Taken = {
    key: { agentId: request.agent.id, sender: senderOf(request.caller), messageId: message.messageId },
    fingerprint: await messageFingerprint(message),
  };
  const started = message.taskId !== undefined ? await answerTask(request, message, message.taskId, taken) : await startTask(request, message, signal, taken);
  // Stored once the task exists: what it did before is in this answer, what it does after is pushed.
  if (push && "taskId" in started) {
    try {
      // Without an id of its own, the config's id comes from the message: sent again, it replaces the one it gave.
      await storePushConfig(request, started, push, await pushConfigIdOf(taken.key));
    } catch (error) {
      started.events.close();
      throw error;
    }
  }
  return started;
}

/** A message as it is kept: its key (agent, sender, `messageId`) and what makes it the same message. */
type Taken = { key: A2aMessageKey; fingerprint: string };

/** The message kept under this key must be this one (its content, and what it did: start a task, or answer one). */
function checkSame(kept: A2aMessage, taken: Taken, answers: boolean): void {
  if (kept.fingerprint !== taken.fingerprint || (kept.toolCallId !== null) !== answers) throw reusedMessageId(taken.key.messageId);
}

/** A refusal of the message itself (nothing was posted or answered): its `messageId` is let go, so it may come again, mended. */
async function letGo(request: A2aRequest, taken: Taken): Promise<void> {
  await forgetA2aMessage(getDatabase(request.c.env.DB), taken.key).catch((error: unknown) => console.error("could not let go of an A2A message", taken.key.messageId, error));
}

async function startTask(request: A2aRequest, message: Message, signal: AbortSignal, taken: Taken): Promise<Started | { message: unknown }> {
  const { c, agent, caller } = request;
  const database = getDatabase(c.env.DB);
  const text = textOf(message);
  await checkDestination(c, agent, caller, message.contextId);
  const speaker = await speakerOf(c, agent, caller);
  const { claimed, message: kept } = await claimA2aMessage(database, {
    ...taken.key,
    fingerprint: taken.fingerprint,
    contextId: message.contextId ?? newConversationId(),
    postedMessageId: createId("msg"),
    toolCallId: null,
    taskId: null,
  });
  checkSame(kept, taken, false);
  const { contextId } = kept;
  const postedId = kept.postedMessageId ?? createId("msg");
  const eventId = `evt_${postedId}`;
  const events = await AgentEvents.open(c.env, agent.id);
  const started = (taskId: string): Started => ({ events, taskId, contextId, userMessage: message });
  /** How far this request got: a refusal before the post lets the message go; once it may be posted, it is kept. */
  let stage: "before" | "posting" | "posted" = "before";
  try {
    if (kept.taskId !== null) return started(kept.taskId);
    // Sent again after its first request died: its run, found by its trigger, is the task.
    const found = claimed ? undefined : await runTriggeredBy(database, agent.id, eventId, kept.createdAt);
    if (found !== undefined) {
      await recordA2aMessageTask(database, taken.key, found);
      return started(found);
    }
    if (message.contextId === undefined) await openConversation(c, agent, speaker, contextId);
    // Posted under the id chosen the first time: a message sent again before its first request posted it is stored once.
    if (kept.postedAt === null) {
      stage = "posting";
      await postAsCaller(c, caller, contextId, { text, ...(caller.kind === "secret" && { entityId: speaker }), mentions: [agent.entityId] }, postedId);
      await markA2aMessagePosted(database, taken.key);
    }
    stage = "posted";
    const start = await waitForRun(events, postedId, Date.now() + startWaitMs, signal);
    // A message sent again may find its run started before these events were open: D1 has that run's start.
    const runId = start.kind === "started" ? start.runId : start.kind === "deadline" ? await runTriggeredBy(database, agent.id, eventId, kept.createdAt) : undefined;
    if (runId !== undefined) {
      await recordA2aMessageTask(database, taken.key, runId);
      return started(runId);
    }
    events.close();
    if (start.kind === "refused") throw new RpcError(rpcErrorCodes.internalError, `The agent was not woken: ${start.reason}`);
    // No run took the message in time (the agent is busy): it waits in the inbox; the answer says so, as a message.
    return {
      message: {
        messageId: `${postedId}-queued`,
        contextId,
        role: "ROLE_AGENT",
        parts: [{ text: "Your message waits in the agent's inbox: no run has started on it yet. Send again on this contextId later, or read the conversation." }],
      },
    };
  } catch (error) {
    events.close();
    // Refused before it was posted (the space's checks answer 4xx, having posted nothing): the request that kept it lets it go.
    if (claimed && (stage === "before" || (stage === "posting" && error instanceof ApiError && error.status < 500))) await letGo(request, taken);
    throw error;
  }
}

/** The caller answers the call an `input-required` task waits on; the same answer sent again is given once. */
async function answerTask(request: A2aRequest, message: Message, taskId: string, taken: Taken): Promise<Started> {
  const { c, agent, caller } = request;
  const database = getDatabase(c.env.DB);
  const record = await loadTask(c.env, agent, caller, taskId);
  if (!record) throw taskNotFound(taskId);
  if (message.contextId !== undefined && message.contextId !== record.contextId)
    throw new RpcError(rpcErrorCodes.invalidParams, `Invalid parameters: task "${taskId}" is not in context "${message.contextId}"`);
  const earlier = await getA2aMessage(database, taken.key);
  if (earlier) return answerAgain(request, message, record, earlier, taken);
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
  const { claimed, message: kept } = await claimA2aMessage(database, {
    ...taken.key,
    fingerprint: taken.fingerprint,
    contextId: record.contextId,
    postedMessageId: null,
    toolCallId: call.toolCallId,
    taskId,
  });
  // The same message at the same moment: the request that kept it answers; this one answers as a message sent again does.
  if (!claimed) return answerAgain(request, message, record, kept, taken);
  const events = await AgentEvents.open(c.env, agent.id);
  try {
    await answerPendingCall(c, call, { type: "ok", value });
  } catch (error) {
    events.close();
    // Refused (the result does not fit, the call settled otherwise) or not taken at all: nothing was answered.
    if (error instanceof ApiError) await letGo(request, taken);
    throw error;
  }
  return { events, taskId, contextId: record.contextId };
}

/**
 * An answer sent again: the task as it is now, after the call it answered
 * is given the same answer once more if it still waits (its first request
 * died before the agent took it; given twice, the agent takes it once).
 */
async function answerAgain(request: A2aRequest, message: Message, record: TaskRecord, earlier: A2aMessage, taken: Taken): Promise<Started> {
  const { c, agent, caller } = request;
  checkSame(earlier, taken, true);
  if (earlier.taskId !== null && earlier.taskId !== record.run.id) throw reusedMessageId(taken.key.messageId);
  const call = record.calls.find((entry) => entry.toolCallId === earlier.toolCallId);
  const events = await AgentEvents.open(c.env, agent.id);
  try {
    if (call && (call.status === "waiting" || call.status === "pending") && (await mayAnswer(c.env, caller, call, call.toolCallId)).ok)
      await answerPendingCall(c, call, { type: "ok", value: answerOf(message) });
  } catch (error) {
    events.close();
    throw error;
  }
  return { events, taskId: record.run.id, contextId: record.contextId };
}

/** A part the caller sent, as the task's history shows it. */
export function outPart(part: Message["parts"][number]): OutPart {
  if (part.text !== undefined) return { text: part.text };
  if (part.url !== undefined) return { url: part.url, ...(part.mediaType && { mediaType: part.mediaType }), ...(part.filename && { filename: part.filename }) };
  return { data: part.data ?? null };
}
