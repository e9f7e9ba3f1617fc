/**
 * One call of a remote agent's skill: `SendMessage` with
 * `returnImmediately`, the model's `message` as a text part and its `data`
 * as a data part, the skill's id in the message's metadata (`skillId`),
 * the gateway's call id as the message id. A message, or a task that is
 * already finished (when sent, or at one `GetTask` right after), is the
 * answer at once (`a2a-task.ts`). A task still
 * under way makes the call a pending call that expires at the tool's
 * timeout: the cycle waits on it, looking at the task itself (`GetTask`)
 * on a doubling interval, and a push from the remote (when its card says
 * it pushes and the gateway knows its public address) makes the agent
 * object look at once (`poll-a2a-call.ts`). If the cycle goes away, the
 * `a2a_poll` deadline goes on looking from the alarm. A remote that never
 * finishes ends in the call's expiry with an error that says so.
 *
 * Done again after a restart, a call that was sent finds its pending row and
 * its poll deadline and waits on: the message is never sent a second time.
 * A restart after the remote took the message but before the pending row
 * and the journal's mark leaves the call to be done again, and its message
 * to be sent again (the remote task's id is only known from the answer: a
 * row written before the send could not spare that). It is the very same
 * request: the message id is the gateway's call id, and the call's expiry
 * (so its push URL) is kept in the object's storage before the first send
 * and read back. A remote can so tell the message it already took, as the
 * protocol lets it, and answer with the task it made (the gateway's own A2A
 * face does); the call's timeout counts from the first send.
 */
import { signCallbackToken } from "../../security/callback-token";
import { traceHeader } from "../../telemetry/tracer";
import type { A2aProviderConfig } from "../config/provider-config";
import { gatewayOriginOf } from "../engine/ask-to-connect";
import { createPendingCall, getPendingCall } from "../engine/pending-calls";
import type { InlineCall } from "../engine/resolved-tool";
import type { PendingCallContext } from "../engine/run-pending-call";
import type { SettingsAccess } from "../engine/tool-context";
import { failed, type ToolOutcome } from "../engine/tool-outcome";
import type { A2aCard, A2aSkill } from "./a2a-card";
import { a2aRpc, readRemoteTask } from "./a2a-rpc";
import { messageOutcome, readTask, SendMessageResult } from "./a2a-task";
import { type A2aPoll, a2aCallbackPath, a2aPollId, maxPollDelayMs, notFinished, remoteNamed } from "./poll-a2a-call";

/** After the deadline, the alarm's backstop expires a call nobody waits for any more. */
const backstopGraceMs = 1_000;
/** The first wait before a poll: short when nothing will push, longer when a push should come first. */
const firstPollMs = 1_000;
const firstPollWithPushMs = 5_000;

export type A2aTarget = { provider: A2aProviderConfig; card: A2aCard; skill: A2aSkill };

export async function runA2aSkill(context: PendingCallContext & SettingsAccess, target: A2aTarget, call: InlineCall): Promise<ToolOutcome> {
  const { provider, card, skill } = target;
  const where = `The remote agent "${card.name}" (skill "${skill.id}")`;
  const resumed = await resumeSent(context, provider, call);
  if (resumed !== undefined) return resumed;

  const runtime = context.toolRuntime;
  const timeoutMs = provider.timeout ?? context.config.limits.toolTimeout;
  // The expiry is kept before the message goes out: done again after a restart, the call sends the same request and keeps its deadline.
  const expiryId = `expiry:${call.toolCallId}`;
  const keptExpiry = runtime.deadlines.get(expiryId);
  const expiresAt = keptExpiry?.kind === "call_expiry" ? keptExpiry.dueAt - backstopGraceMs : Date.now() + timeoutMs;
  const startedAt = expiresAt - timeoutMs;
  if (keptExpiry === undefined) runtime.deadlines.set({ id: expiryId, kind: "call_expiry", dueAt: expiresAt + backstopGraceMs, payload: { toolCallId: call.toolCallId } });
  const ended = (outcome: ToolOutcome): ToolOutcome => {
    // Answered without a pending call: its expiry has nothing to expire.
    runtime.deadlines.delete(expiryId);
    return outcome;
  };
  const args = call.args as { message: string; data?: Record<string, unknown> };
  const origin = gatewayOriginOf(context);
  const pushUrl =
    card.pushNotifications && origin !== undefined
      ? `${origin.replace(/\/+$/, "")}${a2aCallbackPath}${await signCallbackToken(context.env.WEBHOOK_SECRET, call.toolCallId, expiresAt + backstopGraceMs)}`
      : undefined;
  const sent = await a2aRpc(provider, context.env, {
    endpoint: card.endpoint,
    method: "SendMessage",
    id: call.toolCallId,
    params: {
      message: {
        messageId: call.toolCallId,
        role: "ROLE_USER",
        parts: [{ text: args.message }, ...(args.data !== undefined ? [{ data: args.data }] : [])],
        metadata: { skillId: skill.id },
      },
      configuration: { returnImmediately: true, ...(pushUrl !== undefined && { taskPushNotificationConfig: { url: pushUrl } }) },
    },
    timeoutMs,
    signal: call.abortSignal,
    ...traceHeader(call.span),
  });
  if (!sent.ok) return ended(failed(`${where}: ${sent.error}`, sent.kind));
  const answer = SendMessageResult.safeParse(sent.value);
  if (!answer.success) return ended(failed(`${where} answered SendMessage with neither a task nor a message`, "upstream"));
  if ("message" in answer.data) return ended(messageOutcome(answer.data.message));
  const task = answer.data.task;
  const reading = readTask(task, where);
  if ("done" in reading) return ended(reading.done);
  // `returnImmediately` answers with the task as it was created: one look at once lets a quick remote answer without a wait.
  const first = await readRemoteTask(
    provider,
    context.env,
    { endpoint: card.endpoint, remoteTaskId: task.id, toolCallId: call.toolCallId, ...traceHeader(call.span) },
    where,
    call.abortSignal,
  );
  if ("done" in first) return ended(first.done);
  const state = "working" in first ? first.working : reading.working;

  // Under way: a pending call with the tool's timeout as its expiry, followed by polls (and pushes).
  await createPendingCall(context.database, {
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    runId: context.runId,
    agentId: context.agent.agentId,
    agentEntityId: context.agent.entityId,
    toolName: call.toolName,
    executionType: "a2a",
    args: call.args,
    status: "waiting",
    expiresAt: new Date(expiresAt).toISOString(),
    ...(context.initiatorEntityId && { initiatorEntityId: context.initiatorEntityId }),
  });
  const poll: A2aPoll = {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    provider: provider.name,
    endpoint: card.endpoint,
    remoteTaskId: task.id,
    startedAt,
    expiresAt,
    delayMs: pushUrl !== undefined ? firstPollWithPushMs : firstPollMs,
    state,
  };
  runtime.deadlines.set({ id: a2aPollId(call.toolCallId), kind: "a2a_poll", dueAt: Date.now() + poll.delayMs, payload: poll });
  context.publish("a2a.task.started", { toolCallId: call.toolCallId, provider: provider.name, skill: skill.id, remoteTaskId: task.id, state, push: pushUrl !== undefined });
  context.journal.markAnnounced(call.toolCallId);
  return waitForTask(context, provider, call, poll);
}

/** A call done again after a restart whose message went out: it waits on, never sends again. Undefined when it was not sent. */
async function resumeSent(context: PendingCallContext, provider: A2aProviderConfig, call: InlineCall): Promise<ToolOutcome | undefined> {
  if (!context.journal.previous(call.toolCallId)?.announced) return undefined;
  const row = await getPendingCall(context.database, call.toolCallId);
  if (row === undefined) return undefined;
  const kept = context.toolRuntime.deadlines.get(a2aPollId(call.toolCallId));
  if (kept?.kind === "a2a_poll") return waitForTask(context, provider, call, kept.payload);
  // No poll left: the call settled (or expired) while nobody waited; its outcome is recorded.
  return (await context.toolRuntime.calls.await(call.toolCallId, 0)) ?? failed(`"${call.toolName}" lost track of its remote task`, "internal");
}

/** Waits for the call's outcome, looking at the task between waits, until the call's expiry. */
async function waitForTask(context: PendingCallContext, provider: A2aProviderConfig, call: InlineCall, poll: A2aPoll): Promise<ToolOutcome> {
  const { calls, deadlines } = context.toolRuntime;
  let { delayMs, state } = poll;
  for (;;) {
    const outcome = await calls.await(call.toolCallId, Math.min(poll.expiresAt, Date.now() + delayMs), call.abortSignal);
    if (outcome) {
      deadlines.delete(a2aPollId(call.toolCallId));
      return outcome;
    }
    // The cycle itself ended (its deadline, a delete): the poll deadline stays, and the alarm looks on.
    if (call.abortSignal?.aborted) return failed(`The wait for "${call.toolName}" ended with its cycle`);
    if (Date.now() >= poll.expiresAt) {
      const reason = notFinished(poll, state);
      await calls.expire(call.toolCallId, reason);
      deadlines.delete(a2aPollId(call.toolCallId));
      // Settled just before (a push as time ran out): that outcome stands.
      return (await calls.await(call.toolCallId, 0)) ?? failed(reason, "timeout");
    }
    const reading = await readRemoteTask(provider, context.env, { ...poll, ...traceHeader(call.span) }, remoteNamed(poll), call.abortSignal);
    if ("done" in reading) {
      const { done } = reading;
      await calls.settleWith(call.toolCallId, async () => done);
      continue;
    }
    if ("working" in reading) state = reading.working;
    delayMs = Math.min(delayMs * 2, maxPollDelayMs);
  }
}
