/**
 * The agent's configured tools (§5, §6) as AI SDK tools, plus the stream
 * observer that shows visible calls in their space while the model is still
 * writing the arguments. Every call gets exactly one outcome, and a failure is
 * data for the model, never a throw. The observer hears the model's call ids;
 * cards and records use the gateway's (`context.callIds`).
 */
import { dynamicTool, jsonSchema, parsePartialJson, type Tool, type ToolSet } from "ai";
import type { ToolContext } from "../tool-context";
import type { ToolStreamObserver } from "../tool-stream-observer";
import { stripTargetSpaceId, withTargetSpaceId } from "../display-tool-schema";
import { prebuiltTools } from "../prebuilt/prebuilt-registry";
import type { ToolConfig } from "../tool-config";
import { type ToolCard, toolStarted, toolStreaming } from "./tool-events";
import { executeToolCall } from "./execute-tool-call";
import { usesActiveSpace } from "./decide-display";

/** What the observer learned about a call before it executes. */
export type CallTrack = { card?: ToolCard; lastPartial?: string };

export type ResolvedTool = { config: ToolConfig; description: string; inputSchema: Record<string, unknown> };

/** What an `image-generator` tool offers the model when its config gives no description or schema. */
export const imageGeneratorDefaults = {
  description: "Generate an image from a text prompt",
  inputSchema: { type: "object", properties: { prompt: { type: "string", description: "What to draw" } }, required: ["prompt"] },
};

export function resolveTool(config: ToolConfig): ResolvedTool {
  if (config.executionType === "prebuilt") {
    const handler = prebuiltTools[config.execution.action];
    return { config, description: config.description ?? handler.description, inputSchema: config.inputSchema ?? handler.inputSchema };
  }
  if (config.executionType === "image-generator") {
    return { config, description: config.description ?? imageGeneratorDefaults.description, inputSchema: config.inputSchema ?? imageGeneratorDefaults.inputSchema };
  }
  return { config, description: config.description ?? "", inputSchema: config.inputSchema ?? { type: "object", properties: {} } };
}

export function createConfiguredTools(context: ToolContext): { tools: ToolSet; observers: ToolStreamObserver[] } {
  const byName = new Map(context.config.tools.map((config) => [config.name, resolveTool(config)]));
  const tracks = new Map<string, CallTrack>();
  const tools: Record<string, Tool> = {};

  for (const resolved of byName.values()) {
    const modelSchema = resolved.config.displayTool ? withTargetSpaceId(resolved.inputSchema) : resolved.inputSchema;
    tools[resolved.config.name] = dynamicTool({
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

  const observer: ToolStreamObserver = {
    inputStart(toolCallId, toolName) {
      const resolved = byName.get(toolName);
      if (!resolved) return;
      const track: CallTrack = {};
      tracks.set(toolCallId, track);
      const spaceId = context.getActiveSpaceId();
      if (spaceId && usesActiveSpace(resolved.config)) {
        started(toolCallId, toolName, track, { spaceId, minimal: resolved.config.display?.mode === "minimal", customUI: resolved.config.display?.customUI });
      }
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
      if (!track.card && resolved.config.displayTool && targetSpaceId && context.spaces.has(targetSpaceId) && resolved.config.display?.mode !== "hidden") {
        started(toolCallId, toolName, track, { spaceId: targetSpaceId, minimal: resolved.config.display?.mode === "minimal", customUI: resolved.config.display?.customUI });
      }
      if (!track.card) return;
      const partial = JSON.stringify(args);
      if (partial === track.lastPartial) return;
      track.lastPartial = partial;
      toolStreaming(context.spaceEvents, track.card, context.callIds.idFor(toolCallId), args);
    },
  };

  return { tools, observers: [observer] };
}
