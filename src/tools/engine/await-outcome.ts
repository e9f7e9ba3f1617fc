/**
 * A cycle waiting for someone: a pending call's result, or an approval.
 * Waits until the pending-call owner hands over an outcome or the policy's
 * deadline passes; then the owner applies the policy (error, deny, approve,
 * or escalate and wait again). Reminders bring the card up before the
 * deadline. Done again after a restart, the wait continues from when it
 * first started, so the deadline and the reminders stay where they were.
 */
import type { RuntimeAccess, SpaceAccess, StreamAccess } from "./tool-context";
import type { WaitPolicy } from "../config/wait-policy-config";
import type { ToolCard } from "./tool-events";
import { failed, type ToolOutcome } from "./tool-outcome";

/** Extra time before the alarm backstop releases a wait whose live waiter vanished. */
const backstopGraceMs = 1_000;

export type Wait = {
  pendingId: string;
  toolName: string;
  startedAt: number;
  policy: WaitPolicy;
  card?: ToolCard & { messageId: string };
  abortSignal?: AbortSignal;
};

export async function awaitOutcome(context: SpaceAccess & StreamAccess & RuntimeAccess, initial: Wait): Promise<ToolOutcome> {
  let wait = initial;
  const runtime = context.toolRuntime;
  let deadline = wait.startedAt + wait.policy.timeoutMs;
  for (;;) {
    const already = await runtime.calls.await(wait.pendingId, 0);
    if (already) return already;
    runtime.deadlines.set({ id: `timeout:${wait.pendingId}`, kind: "tool_timeout", dueAt: deadline + backstopGraceMs, payload: { toolCallId: wait.pendingId } });
    const reminders = scheduleReminders(context, wait, deadline);
    const outcome = await runtime.calls.await(wait.pendingId, deadline, wait.abortSignal);
    for (const timer of reminders) clearTimeout(timer);
    runtime.deadlines.delete(`timeout:${wait.pendingId}`);
    if (outcome) return outcome;
    // The cycle itself ended (its deadline, a delete): the call stays for whoever comes next.
    if (wait.abortSignal?.aborted) return failed(`The wait for "${wait.toolName}" ended with its cycle`);
    const result = await runtime.calls.timeOut(wait.pendingId, wait.toolName, wait.policy);
    if ("outcome" in result) return result.outcome;
    // Escalated (now, or before a restart): the card moved on and the wait goes on there, reminders included.
    deadline = result.deadline;
    if (result.card && wait.card) wait = { ...wait, card: { ...wait.card, ...result.card } };
  }
}

/** Live timers for the reminders still ahead (a wait continued after a restart sets the ones left). */
function scheduleReminders(context: SpaceAccess & StreamAccess, wait: Wait, deadline: number): ReturnType<typeof setTimeout>[] {
  const card = wait.card;
  if (!wait.policy.reminders || !card) return [];
  return wait.policy.reminders
    .map((before) => deadline - before)
    .filter((at) => at > Date.now())
    .map((at) =>
      setTimeout(() => {
        const remindedAt = new Date().toISOString();
        context.publish("tool.reminder", {
          toolCallId: wait.pendingId,
          toolName: wait.toolName,
          spaceId: card.spaceId,
          messageId: card.messageId,
          deadline: new Date(deadline).toISOString(),
        });
        // The card is brought up again: `space.message.updated` with the part's `remindedAt`.
        context.spaceEvents
          .ordered(card.spaceId)
          .updateToolPart(card.messageId, wait.pendingId, { remindedAt })
          .catch((error: unknown) => console.error("could not remind", wait.pendingId, error));
      }, at - Date.now()),
    );
}
