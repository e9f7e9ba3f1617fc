/**
 * The space side of a visible tool call (space events): `tool.started`,
 * `tool.streaming`, `tool.done`, `tool.error`, and the persisted message with
 * a `tool_call` part. For `display.mode: "minimal"` tools, public-key clients
 * get only the call's id, name and status.
 */
import type { MessagePart, ToolCallPart } from "../../protocol/message";
import type { SpacePort } from "../../protocol/space-port";
import type { SpaceChannel } from "./tool-context";

export type ToolCard = {
  spaceId: string;
  minimal: boolean;
  customUI?: string;
  /** The role the card's message is posted with (`display.messageRole`); `tool` when absent. Everything that reads a card goes by its part, never by this. */
  role?: "tool" | "assistant";
};

export function toolStarted(buffer: SpaceChannel, card: ToolCard, call: { toolCallId: string; toolName: string; agentEntityId: string; runId: string }): void {
  buffer.push(card.spaceId, { type: "tool.started", data: call });
}

export function toolStreaming(buffer: SpaceChannel, card: ToolCard, toolCallId: string, partialArgs: unknown): void {
  buffer.push(card.spaceId, {
    type: "tool.streaming",
    data: { toolCallId, partialArgs },
    ...(card.minimal && { publicData: { toolCallId } }),
  });
}

/**
 * Progress of a running call (an MCP tool's progress notifications), as
 * `tool.streaming` on its card: the arguments as they are, plus `progress`.
 */
export function toolProgress(buffer: SpaceChannel, card: ToolCard, toolCallId: string, args: unknown, progress: { progress: number; total?: number; message?: string }): void {
  buffer.push(card.spaceId, {
    type: "tool.streaming",
    data: { toolCallId, partialArgs: args, progress },
    ...(card.minimal && { publicData: { toolCallId, progress: { progress: progress.progress, ...(progress.total !== undefined && { total: progress.total }) } } }),
  });
}

/** Emits `tool.done` or `tool.error` to the card's space (through `stub`, for ordering). */
export async function toolFinished(
  stub: SpacePort,
  card: ToolCard,
  call: { toolCallId: string; toolName: string; args: unknown },
  outcome: { result: unknown } | { error: string },
): Promise<void> {
  if ("error" in outcome) {
    await stub.emit({
      type: "tool.error",
      data: { toolCallId: call.toolCallId, toolName: call.toolName, error: outcome.error },
      ...(card.minimal && { publicData: { toolCallId: call.toolCallId, toolName: call.toolName } }),
    });
  } else {
    await stub.emit({
      type: "tool.done",
      data: { toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, result: outcome.result },
      ...(card.minimal && { publicData: { toolCallId: call.toolCallId, toolName: call.toolName } }),
    });
  }
}

export function cardPart(card: ToolCard, call: { toolCallId: string; toolName: string; args: unknown; runId: string }, status: ToolCallPart["status"]): ToolCallPart {
  return {
    type: "tool_call",
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    args: call.args,
    status,
    runId: call.runId,
    ...(card.customUI && { customUI: card.customUI }),
    ...(card.minimal && { displayMode: "minimal" as const }),
  };
}

/**
 * Moves a card's part to its final status and announces the outcome;
 * `addParts` join the card (an image the call made); `changes` are more
 * fields of the part (who answered, where it was escalated to, when it expired).
 */
export async function settleCard(
  stub: SpacePort,
  card: ToolCard & { messageId: string },
  call: { toolCallId: string; toolName: string; args: unknown },
  outcome: { result: unknown } | { error: string },
  addParts?: MessagePart[],
  changes: Partial<ToolCallPart> = {},
): Promise<void> {
  const status = "error" in outcome ? "error" : "complete";
  // Sent back to back on one stub: E-order keeps the update before the outcome.
  const update = stub.updateToolPart(
    card.messageId,
    call.toolCallId,
    "error" in outcome ? { ...changes, status, result: { error: outcome.error } } : { ...changes, status, result: outcome.result },
    status,
    ...(addParts && addParts.length > 0 ? [addParts] : []),
  );
  await Promise.all([update, toolFinished(stub, card, call, outcome)]);
}
