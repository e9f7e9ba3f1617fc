/**
 * Engine tools (every `ResolvedTool`, whoever provides it) as AI SDK tools,
 * plus the stream observer that shows visible calls in their space while the
 * model is still writing the arguments. Every call gets exactly one outcome,
 * and a failure is data for the model, never a throw. The observer hears the
 * model's call ids; cards and records use the gateway's (`context.callIds`).
 */
import { dynamicTool, jsonSchema, parsePartialJson, type Tool } from "ai";
import type { ToolContext } from "../tool-context";
import type { ToolStreamObserver } from "../tool-stream-observer";
import { stripTargetSpaceId, withTargetSpaceId } from "../display-tool-schema";
import { type ToolCard, toolStarted, toolStreaming } from "./tool-events";
import { executeToolCall } from "./execute-tool-call";
import { cardFor, usesActiveSpace } from "./decide-display";
import type { ResolvedTool } from "./resolved-tool";

/** What the observer learned about a call before it executes. */
export type CallTrack = { card?: ToolCard; lastPartial?: string };

export function createEngineTools(context: ToolContext, resolvedTools: ResolvedTool[]): { tools: Record<string, Tool>; observer: ToolStreamObserver } {
  const byName = new Map(resolvedTools.map((resolved) => [resolved.name, resolved]));
  const tracks = new Map<string, CallTrack>();
  const tools: Record<string, Tool> = {};

  for (const resolved of byName.values()) {
    const modelSchema = resolved.display.displayTool ? withTargetSpaceId(resolved.inputSchema) : resolved.inputSchema;
    tools[resolved.name] = dynamicTool({
      description: resolved.description,
      inputSchema: jsonSchema(modelSchema),
      execute: (input, options) =>
        executeToolCall(
          context,
          resolved,
          { toolCallId: context.callIds.idFor(options.toolCallId), modelToolCallId: options.toolCallId, input, abortSignal: options.abortSignal },
          tracks.get(options.toolCallId) ?? {},
        ),
    });
  }

  const started = (modelToolCallId: string, toolName: string, track: CallTrack, card: ToolCard) => {
    track.card = card;
    toolStarted(context.spaceEvents, card, { toolCallId: context.callIds.idFor(modelToolCallId), toolName, agentEntityId: context.agent.entityId, runId: context.runId });
  };
  const cardOf = (resolved: ResolvedTool, spaceId: string): ToolCard => cardFor(resolved.display, spaceId);

  const observer: ToolStreamObserver = {
    inputStart(toolCallId, toolName) {
      const resolved = byName.get(toolName);
      if (!resolved) return;
      const track: CallTrack = {};
      tracks.set(toolCallId, track);
      const spaceId = context.getActiveSpaceId();
      if (spaceId && usesActiveSpace(resolved.display)) started(toolCallId, toolName, track, cardOf(resolved, spaceId));
    },
    async inputDelta(toolCallId, toolName, inputText) {
      const resolved = byName.get(toolName);
      const track = tracks.get(toolCallId);
      if (!resolved || !track) return;
      const { value } = await parsePartialJson(inputText);
      if (typeof value !== "object" || value === null || Array.isArray(value)) return;
      const { args, targetSpaceId } = stripTargetSpaceId(value);
      // A target is taken only once it names a space the agent belongs to, so
      // a half-streamed id never opens a card anywhere.
      if (!track.card && resolved.display.displayTool && targetSpaceId && context.spaces.has(targetSpaceId) && resolved.display.display?.mode !== "hidden") {
        started(toolCallId, toolName, track, cardOf(resolved, targetSpaceId));
      }
      if (!track.card) return;
      const partial = JSON.stringify(args);
      if (partial === track.lastPartial) return;
      track.lastPartial = partial;
      toolStreaming(context.spaceEvents, track.card, context.callIds.idFor(toolCallId), args);
    },
  };

  return { tools, observer };
}
