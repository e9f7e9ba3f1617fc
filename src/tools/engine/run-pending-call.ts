/**
 * External and space calls (§6): a PendingToolCall is written to D1 before
 * the call is announced; `isAsync` returns pending at once, otherwise the
 * cycle waits up to `timeout` for the result route to hand the result over.
 * On timeout the call flips to `pending` (a late result reaches the inbox) and
 * the model gets the contract's timeout error.
 */
import type { CycleContext } from "../../agents/cycle-context";
import type { ToolConfig } from "../tool-config";
import { capResult } from "./cap-result";
import { createPendingCall, transitionPendingCall } from "./pending-calls";
import type { ToolCard } from "./tool-events";

/** Extra time before the alarm backstop flips a call whose live waiter vanished. */
const backstopGraceMs = 1_000;

export async function runPendingCall(
  context: CycleContext,
  config: Extract<ToolConfig, { executionType: "external" | "space" }>,
  call: { toolCallId: string; toolName: string; args: unknown; abortSignal?: AbortSignal },
  card: (ToolCard & { messageId: string }) | undefined,
): Promise<unknown> {
  const now = Date.now();
  const status = config.isAsync ? "pending" : "waiting";
  const expiresIn = config.execution?.expiresIn;
  const expiresAt = expiresIn ? new Date(now + expiresIn).toISOString() : undefined;
  const timeoutMs = config.timeout ?? context.config.limits.toolTimeout;
  const runtime = context.toolRuntime;

  await createPendingCall(context.database, {
    toolCallId: call.toolCallId,
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
  });
  if (expiresAt) runtime.setDeadline({ id: `expiry:${call.toolCallId}`, kind: "call_expiry", dueAt: now + (expiresIn ?? 0), payload: { toolCallId: call.toolCallId } });
  if (status === "waiting") {
    runtime.setDeadline({ id: `timeout:${call.toolCallId}`, kind: "tool_timeout", dueAt: now + timeoutMs + backstopGraceMs, payload: { toolCallId: call.toolCallId } });
  }

  const announcement = {
    runId: context.runId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    executionType: config.executionType,
    args: call.args,
    status,
    ...(expiresAt && { expiresAt }),
    ...(card && { spaceId: card.spaceId, messageId: card.messageId }),
    resultUrl: `/api/runs/${context.runId}/tool-results`,
  };
  context.publish("tool.pending", announcement);
  const webhook = config.execution?.webhook;
  if (webhook) runtime.sendWebhook(call.toolCallId, webhook, JSON.stringify({ type: "tool.call", agentId: context.agent.agentId, ...announcement }));

  if (status === "pending") return { status: "pending", pendingToolCallId: call.toolCallId };

  const outcome = await runtime.waiters.wait(call.toolCallId, timeoutMs, call.abortSignal);
  runtime.deleteDeadline(`timeout:${call.toolCallId}`);
  if (outcome.kind === "result") return capResult(outcome.result, context.config.limits.toolResponseMaxBytes);
  if (outcome.kind === "expired") return { error: outcome.error };
  // Timed out. If a result won the race in D1 but missed this waiter, the
  // agent object sends it to the inbox instead: either way exactly one delivery.
  await transitionPendingCall(context.database, call.toolCallId, ["waiting"], "pending");
  return { error: `Tool "${call.toolName}" timed out after ${timeoutMs}ms` };
}
