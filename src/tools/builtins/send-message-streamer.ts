/**
 * Streams `send_message` text into the active space while the model is still
 * writing the arguments: each growth of the partial `text` becomes a
 * `space.message.streaming` delta carrying the id the persisted message will
 * have (derived from the call's gateway id).
 */
import { parsePartialJson } from "ai";
import type { JournalAccess, RunIdentity, SpaceAccess } from "../engine/tool-context";
import type { ToolStreamObserver } from "../engine/tool-stream-observer";
import { messageIdForCall } from "../engine/call-ids";

export function createSendMessageStreamer(context: RunIdentity & SpaceAccess & JournalAccess): ToolStreamObserver {
  const sent = new Map<string, number>();
  const spaces = new Map<string, string>();
  // An `enter_space` earlier in the same step has not finished when the next
  // call's text starts streaming: predict the space it enters (only spaces the
  // agent belongs to), so the first reply streams too.
  let predicted: { spaceId: string | undefined } | undefined;
  return {
    call(_toolCallId, toolName, input) {
      if (toolName === "leave_space") predicted = { spaceId: undefined };
      if (toolName !== "enter_space") return;
      const spaceId = typeof input === "object" && input !== null && "spaceId" in input && typeof input.spaceId === "string" ? input.spaceId : undefined;
      predicted = { spaceId: spaceId && context.spaces.has(spaceId) ? spaceId : context.getActiveSpaceId() };
    },
    inputStart(toolCallId, toolName) {
      if (toolName !== "send_message") return;
      sent.set(toolCallId, 0);
    },
    async inputDelta(toolCallId, toolName, inputText) {
      if (toolName !== "send_message") return;
      const streamId = sent.has(toolCallId) ? messageIdForCall(context.callIds.idFor(toolCallId)) : undefined;
      const spaceId = spaces.get(toolCallId) ?? (predicted ? predicted.spaceId : context.getActiveSpaceId());
      if (!streamId || !spaceId) return;
      spaces.set(toolCallId, spaceId);
      const { value } = await parsePartialJson(inputText);
      const text = typeof value === "object" && value !== null && "text" in value && typeof value.text === "string" ? value.text : "";
      const already = sent.get(toolCallId) ?? 0;
      if (text.length <= already) return;
      sent.set(toolCallId, text.length);
      context.spaceEvents.push(spaceId, {
        type: "space.message.streaming",
        data: { streamId, entityId: context.agent.entityId, delta: text.slice(already) },
      });
    },
  };
}
