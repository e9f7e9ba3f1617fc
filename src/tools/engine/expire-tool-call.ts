/**
 * Deadlines of pending calls, run from the agent object's alarm: a sync call
 * whose waiter was lost to a restart flips to `pending`; a call past its
 * `expiresAt` becomes `expired`, its card shows the error, and the agent hears
 * about it (inline if a cycle still waits, else a `tool_result` with an error).
 */
import type { AgentStorage } from "../../agents/agent-storage";
import { getDatabase } from "../../db/client";
import type { AppEnv } from "../../env";
import { transitionPendingCall } from "./pending-calls";
import { spaceStub } from "../../spaces/space-stub";
import { settleCard } from "./tool-events";
import type { ToolWaiters } from "./tool-waiters";

export async function flipTimedOutCall(env: AppEnv, toolCallId: string): Promise<void> {
  await transitionPendingCall(getDatabase(env.DB), toolCallId, ["waiting"], "pending");
}

export async function expireToolCall(env: AppEnv, toolCallId: string, waiters: ToolWaiters, storage: AgentStorage): Promise<boolean> {
  const call = await transitionPendingCall(getDatabase(env.DB), toolCallId, ["waiting", "pending"], "expired");
  if (!call) return false;
  const error = `Tool "${call.toolName}" expired at ${call.expiresAt ?? new Date().toISOString()} without a result`;
  if (!waiters.settle(toolCallId, { kind: "expired", error })) {
    storage.enqueue({ type: "tool_result", toolCallId, toolName: call.toolName, runId: call.runId, result: null, error }, `evt_result_${toolCallId}`);
  }
  if (call.spaceId && call.messageId) {
    await settleCard(
      spaceStub(env, call.spaceId),
      { spaceId: call.spaceId, messageId: call.messageId, minimal: call.displayMode === "minimal" },
      { toolCallId, toolName: call.toolName, args: call.args },
      { error },
    );
  }
  return true;
}
