/**
 * Hands an accepted result to whoever needs it: the cycle waiting for it
 * (inline, no inbox event), or the agent's inbox as a `tool_result` event.
 * The inbox event id is derived from the call, so it is queued at most once.
 */
import type { AgentStorage } from "../../agents/agent-storage";
import type { ToolWaiters } from "./tool-waiters";

export type ToolCallSettlement = {
  toolCallId: string;
  runId: string;
  toolName: string;
  previousStatus: "waiting" | "pending";
  result: unknown;
};

export function settleToolCall(settlement: ToolCallSettlement, waiters: ToolWaiters, storage: AgentStorage): "inline" | "inbox" {
  if (settlement.previousStatus === "waiting" && waiters.settle(settlement.toolCallId, { kind: "result", result: settlement.result })) {
    return "inline";
  }
  storage.enqueue(
    { type: "tool_result", toolCallId: settlement.toolCallId, toolName: settlement.toolName, runId: settlement.runId, result: settlement.result },
    `evt_result_${settlement.toolCallId}`,
  );
  return "inbox";
}
