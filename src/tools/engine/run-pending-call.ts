/**
 * External and space calls (§6): a PendingToolCall is written to D1 before
 * the call is announced; `isAsync` returns pending at once, otherwise the
 * cycle waits up to `timeout` for the pending-call owner to hand it an
 * outcome. On timeout the call flips to `pending` (a late result reaches the
 * inbox) and the model gets the contract's timeout error.
 *
 * Done again after a restart, the call keeps its id: the row is found, not
 * written twice; an announcement already made (agent stream, webhook) is not
 * made again; a sync wait continues for the time it had left.
 */
import type { ToolContext } from "../tool-context";
import type { ToolConfig } from "../tool-config";
import { awaitOutcome } from "./await-outcome";
import { capResult } from "./cap-result";
import { createPendingCall } from "./pending-calls";
import type { ToolCard } from "./tool-events";
import { succeeded, type ToolOutcome } from "./tool-outcome";


export async function runPendingCall(
  context: ToolContext,
  config: Extract<ToolConfig, { executionType: "external" | "space" }>,
  call: { toolCallId: string; modelToolCallId: string; toolName: string; args: unknown; abortSignal?: AbortSignal },
  card: (ToolCard & { messageId: string }) | undefined,
): Promise<ToolOutcome> {
  const previous = context.journal.previous(call.toolCallId);
  const startedAt = previous?.startedAt ?? Date.now();
  const status = config.isAsync ? "pending" : "waiting";
  const expiresIn = config.execution?.expiresIn;
  const expiresAt = expiresIn ? new Date(startedAt + expiresIn).toISOString() : undefined;
  const timeoutMs = config.timeout ?? context.config.limits.toolTimeout;
  const runtime = context.toolRuntime;

  await createPendingCall(context.database, {
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    runId: context.runId,
    agentId: context.agent.agentId,
    agentEntityId: context.agent.entityId,
    toolName: call.toolName,
    executionType: config.executionType,
    args: call.args,
    status,
    spaceId: card?.spaceId,
    messageId: card?.messageId,
    displayMode: card?.minimal ? "minimal" : undefined,
    expiresAt,
    ...(config.executionType === "space" && config.answeredBy && { answeredBy: config.answeredBy }),
    ...(context.initiatorEntityId && { initiatorEntityId: context.initiatorEntityId }),
  });
  if (expiresAt) runtime.setDeadline({ id: `expiry:${call.toolCallId}`, kind: "call_expiry", dueAt: Date.parse(expiresAt), payload: { toolCallId: call.toolCallId } });

  if (!previous?.announced) {
    const announcement = {
      runId: context.runId,
      toolCallId: call.toolCallId,
      modelToolCallId: call.modelToolCallId,
      toolName: call.toolName,
      executionType: config.executionType,
      args: call.args,
      status,
      ...(expiresAt && { expiresAt }),
      ...(card && { spaceId: card.spaceId, messageId: card.messageId }),
      resultUrl: `/api/runs/${context.runId}/tool-results`,
      callbackUrl: await context.callbackUrl(call.toolCallId, expiresAt),
    };
    context.publish("tool.pending", announcement);
    const webhook = config.execution?.webhook;
    // The webhook's first attempt arms its retry deadline in this same turn: announced once, delivered at least once.
    if (webhook) runtime.sendWebhook(call.toolCallId, webhook, JSON.stringify({ type: "tool.call", agentId: context.agent.agentId, ...announcement }));
    context.journal.markAnnounced(call.toolCallId);
  }

  if (status === "pending") return { type: "pending", callId: call.toolCallId };

  const outcome = await awaitOutcome(context, {
    pendingId: call.toolCallId,
    toolName: call.toolName,
    startedAt,
    policy: { timeoutMs, onTimeout: config.onTimeout ?? "error", escalateTo: config.escalateTo, reminders: config.reminders },
    card,
    abortSignal: call.abortSignal,
  });
  return outcome.type === "ok" ? succeeded(capResult(outcome.value, context.config.limits.toolResponseMaxBytes)) : outcome;
}
