/**
 * A tool the engine runs (through `tool-pipeline.ts`), whatever provides it: the
 * agent's configured tools, MCP servers, OpenAPI operations, sub-agents. Each
 * provider says how the tool shows (`display`), whether it waits on a pending
 * call (`pending`), how its calls are queued and cached (`policy`), and how
 * one call runs (`run`). Everything else (where a call shows, validation,
 * the card, the queue and the cache) is the pipeline's, written once.
 */
import type { MessagePart } from "../../protocol/message";
import type { ToolContext } from "./tool-context";
import type { AnsweredBy } from "../config/wait-policy-config";
import type { ToolCard } from "./tool-events";
import type { ToolOutcome } from "./tool-outcome";
import type { Span } from "../../telemetry/tracer";

export type ToolDisplaySettings = {
  name: string;
  /** As configured; `undefined` means `defaultVisible`. */
  visible?: boolean;
  defaultVisible: boolean;
  displayTool?: boolean;
  display?: { customUI?: string; mode?: "full" | "minimal" | "hidden"; messageRole?: "tool" | "assistant" };
  /** The mode when the config names none (prebuilt tools: `minimal`); `full` when absent. */
  defaultMode?: "minimal";
  /** Answered by a person in the space: always shows in the active space (or its target). */
  answeredInSpace?: boolean;
};

export type CallPolicy = {
  /** A named queue of the agent (`queues`): at most its `concurrency` calls at a time, across cycles. */
  queue?: string;
  /** Answers kept for `ttlMs`, keyed on the tool and its canonical arguments (only `ok` outcomes). */
  cache?: { ttlMs: number };
};

/** One call, as the engine hands it to a tool's `run`. */
export type InlineCall = {
  toolCallId: string;
  modelToolCallId: string;
  toolName: string;
  args: unknown;
  abortSignal?: AbortSignal;
  /** The call's card in a space, when it shows in one. */
  card?: ToolCard & { messageId: string };
  /** Parts the card gets beside the outcome when the engine settles it (an image the call drew). */
  addCardParts(parts: MessagePart[]): void;
  /** Progress while the call runs (MCP progress notifications): `tool.streaming` on the card. */
  progress(update: { progress: number; total?: number; message?: string }): void;
  /** The call's span (`execute_tool`): its `traceparent` goes on the requests the call makes, its waits are its children. */
  span?: Span;
};

export type ResolvedTool = {
  /** The name the model calls it by. */
  name: string;
  /** The provider it came from (statistics and the run record). */
  provider: string;
  description: string;
  inputSchema: Record<string, unknown>;
  display: ToolDisplaySettings;
  /**
   * Waits on a PendingToolCall: the card says `requires_action` (unless
   * `cardStatus` says otherwise) and the pending-call owner settles it.
   * `answeredBy`: who may answer (a `space` tool's policy), said on the card.
   */
  pending?: { cardStatus: "requires_action" | "running"; answeredBy?: AnsweredBy };
  policy?: CallPolicy;
  run(context: ToolContext, call: InlineCall): Promise<ToolOutcome>;
};
