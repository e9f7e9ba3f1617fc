/**
 * Moves an unanswered card on, once: to `escalateTo.spaceId` (a space the
 * agent belongs to) or again in its own space, mentioning
 * `escalateTo.mentions`. Members of the new space may answer from then on.
 * The pending-call owner calls it when a wait's policy says `escalate`.
 */
import { and, eq, isNull } from "drizzle-orm";
import { pendingToolCalls } from "../db/schema";
import { isMember } from "../db/spaces";
import { answeredByOnCard, cardPart, getPendingCall, messageIdForCall, settleCard, type TimeoutResult, type WaitPolicy } from "../tools";
import type { Database } from "../db/client";
import type { SpacePort } from "../protocol/space-port";
import type { WebhookEvent } from "../webhooks/webhook-event";

/** What an escalation needs from the agent object (a part of the pending-call owner's host). */
export type EscalationHost = {
  database(): Database;
  space(spaceId: string): SpacePort;
  publish(type: string, data: Record<string, unknown>): void;
  notify(event: WebhookEvent, spaceIds: readonly string[]): void;
  callbackUrl(pendingId: string, expiresAt: string | null): Promise<string>;
};

export async function escalateCall(host: EscalationHost, pendingId: string, policy: WaitPolicy): Promise<Extract<TimeoutResult, { escalated: true }> | undefined> {
  const database = host.database();
  const call = await getPendingCall(database, pendingId);
  if (call?.status !== "waiting") return undefined;
  if (call.escalatedAt) {
    // Escalated before (the wait was continued after a restart): it goes on for the time the escalation gave it.
    const deadline = Date.parse(call.escalatedAt) + policy.timeoutMs;
    return deadline > Date.now() ? { escalated: true, deadline, ...(call.spaceId && call.messageId && { card: { spaceId: call.spaceId, messageId: call.messageId } }) } : undefined;
  }
  const target = policy.escalateTo?.spaceId ?? call.spaceId ?? undefined;
  if (!target) return undefined;
  if (target !== call.spaceId && !(await isMember(database, target, call.agentEntityId))) {
    console.error("cannot escalate to a space the agent is not in", pendingId, target);
    return undefined;
  }
  const minimal = call.displayMode === "minimal";
  const card = { spaceId: target, minimal };
  // The copy keeps the role its card was posted with (a tool's `display.messageRole`).
  const original = call.spaceId && call.messageId ? await host.space(call.spaceId).getMessage(call.messageId) : undefined;
  const message = await host.space(target).postMessage({
    id: `${call.messageId ?? messageIdForCall(pendingId)}_escalated`,
    entityId: call.agentEntityId,
    role: original?.role === "assistant" ? "assistant" : "tool",
    parts: [
      {
        ...cardPart(card, { toolCallId: pendingId, toolName: call.toolName, args: call.args, runId: call.runId }, "requires_action"),
        ...(call.kind === "approval" && { kind: "approval" as const, approves: `call_${pendingId.replace(/^apr_/, "")}` }),
        ...answeredByOnCard(call.answeredBy, call.initiatorEntityId),
        ...(call.spaceId && { escalatedFrom: call.spaceId }),
      },
    ],
    status: "requires_action",
    ...(policy.escalateTo?.mentions && { mentions: policy.escalateTo.mentions }),
  });
  const moved = await database
    .update(pendingToolCalls)
    .set({ spaceId: target, messageId: message.id, escalatedAt: new Date().toISOString(), updatedAt: new Date().toISOString() })
    .where(and(eq(pendingToolCalls.toolCallId, pendingId), eq(pendingToolCalls.status, "waiting"), isNull(pendingToolCalls.escalatedAt)))
    .returning({ id: pendingToolCalls.toolCallId })
    .get();
  if (!moved) return undefined;
  if (call.spaceId && call.messageId) {
    await settleCard(
      host.space(call.spaceId),
      { spaceId: call.spaceId, messageId: call.messageId, minimal },
      { toolCallId: pendingId, toolName: call.toolName, args: call.args },
      { error: `Nobody answered in time; moved to space ${target}` },
      undefined,
      { escalatedTo: target },
    ).catch((error: unknown) => console.error("could not close the escalated card", pendingId, error));
  }
  host.notify(
    {
      id: `evt_${pendingId}_escalated`,
      type: "call.awaiting_input",
      timestamp: new Date().toISOString(),
      data: {
        agentId: call.agentId,
        kind: call.kind,
        runId: call.runId,
        toolCallId: pendingId,
        toolName: call.toolName,
        executionType: call.executionType,
        args: call.args,
        status: "waiting",
        spaceId: target,
        messageId: message.id,
        escalated: true,
        escalatedFrom: call.spaceId,
        ...(call.expiresAt && { expiresAt: call.expiresAt }),
        resultUrl: `/api/runs/${call.runId}/tool-results`,
        callbackUrl: await host.callbackUrl(pendingId, call.expiresAt),
      },
    },
    [target],
  );
  host.publish("tool.escalated", {
    toolCallId: pendingId,
    toolName: call.toolName,
    from: call.spaceId,
    to: target,
    messageId: message.id,
    ...(policy.escalateTo?.mentions && { mentions: policy.escalateTo.mentions }),
  });
  return { escalated: true, deadline: Date.now() + policy.timeoutMs, card: { spaceId: target, messageId: message.id } };
}
