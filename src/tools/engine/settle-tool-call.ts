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

export function settleToolCall(
  settlement: ToolCallSettlement,
  waiters: ToolWaiters,
  storage: AgentStorage,
  /** Starts a cycle for an event that had to go to the inbox after all. */
  wake: () => void,
): "inline" | "inbox" {
  if (settlement.previousStatus === "waiting" && waiters.has(settlement.toolCallId)) {
    // Hand it over on the next turn, so the submitter's answer leaves before
    // the waiting cycle resumes. If the wait ended in between (timeout), the
    // result goes to the inbox instead: delivered exactly once either way.
    setTimeout(() => {
      if (waiters.settle(settlement.toolCallId, { kind: "result", result: settlement.result })) return;
      enqueueResult(settlement, storage);
      wake();
    }, 0);
    return "inline";
  }
  enqueueResult(settlement, storage);
  return "inbox";
}

function enqueueResult(settlement: ToolCallSettlement, storage: AgentStorage): void {
  storage.enqueue(
    { type: "tool_result", toolCallId: settlement.toolCallId, toolName: settlement.toolName, runId: settlement.runId, result: settlement.result },
    `evt_result_${settlement.toolCallId}`,
  );
}
