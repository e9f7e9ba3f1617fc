/**
 * The cards of engine tools while the model is still writing a call's
 * arguments: a call that shows in the active space (or, for a `displayTool`,
 * in the space its `targetSpaceId` names once that is a space the agent
 * belongs to) gets `tool.started` and `tool.streaming` before it runs. What
 * the stream opened is kept per model call id for the tool pipeline's events
 * stage, which posts, fails or settles the card. Built-ins have no cards.
 * The observer hears the model's call ids; cards use the gateway's.
 */
import { parsePartialJson } from "ai";
import type { JournalAccess, RunIdentity, SpaceAccess } from "./tool-context";
import type { ToolStreamObserver } from "./tool-stream-observer";
import { stripTargetSpaceId } from "./display-tool-schema";
import { cardFor, usesActiveSpace } from "./decide-display";
import type { ResolvedTool } from "./resolved-tool";
import { type ToolCard, toolStarted, toolStreaming } from "./tool-events";

/** What the stream showed of a call before it runs. */
export type CallTrack = { card?: ToolCard; lastPartial?: string };

export class StreamedCards {
  readonly #tracks = new Map<string, CallTrack>();
  readonly observer: ToolStreamObserver;

  constructor(context: RunIdentity & SpaceAccess & JournalAccess, engineTools: ReadonlyMap<string, ResolvedTool>) {
    const started = (modelToolCallId: string, resolved: ResolvedTool, track: CallTrack, spaceId: string) => {
      track.card = cardFor(resolved.display, spaceId);
      toolStarted(context.spaceEvents, track.card, {
        toolCallId: context.callIds.idFor(modelToolCallId),
        toolName: resolved.name,
        agentEntityId: context.agent.entityId,
        runId: context.runId,
      });
    };
    this.observer = {
      inputStart: (modelToolCallId, toolName) => {
        const resolved = engineTools.get(toolName);
        if (!resolved) return;
        const track: CallTrack = {};
        this.#tracks.set(modelToolCallId, track);
        const spaceId = context.getActiveSpaceId();
        if (spaceId && usesActiveSpace(resolved.display)) started(modelToolCallId, resolved, track, spaceId);
      },
      inputDelta: async (modelToolCallId, toolName, inputText) => {
        const resolved = engineTools.get(toolName);
        const track = this.#tracks.get(modelToolCallId);
        if (!resolved || !track) return;
        const { value } = await parsePartialJson(inputText);
        if (typeof value !== "object" || value === null || Array.isArray(value)) return;
        const { args, targetSpaceId } = stripTargetSpaceId(value);
        // A target is taken only once it names a space the agent belongs to, so
        // a half-streamed id never opens a card anywhere.
        if (!track.card && resolved.display.displayTool && targetSpaceId && context.spaces.has(targetSpaceId) && resolved.display.display?.mode !== "hidden") {
          started(modelToolCallId, resolved, track, targetSpaceId);
        }
        if (!track.card) return;
        const partial = JSON.stringify(args);
        if (partial === track.lastPartial) return;
        track.lastPartial = partial;
        toolStreaming(context.spaceEvents, track.card, context.callIds.idFor(modelToolCallId), args);
      },
    };
  }

  /** What the stream showed of a call (nothing for a call that never streamed: one inside `batch`, one continued after a restart). */
  trackOf(modelToolCallId: string): CallTrack {
    return this.#tracks.get(modelToolCallId) ?? {};
  }
}
