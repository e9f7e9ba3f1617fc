/**
 * The `scripted` provider (docs/agents.md, "Model providers"): a real AI SDK
 * language model that plays configured turns in order, one turn per model call,
 * and streams each one in small deltas the way a hosted model does. The
 * position in the script belongs to the caller (the agent keeps it in Durable
 * Object storage), so a script carries on across cycles and evictions.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { ScriptedTurn } from "./model-config";
import { createId } from "../ids";

/** What the model answers once every turn has been played. */
export const scriptFinishedText = "(script finished)";

/** Where the script stands. The caller persists it; the model only reads and reports. */
export type ScriptedCursor = {
  /** Index of the turn the next model call plays; `turns.length` or more means the script is finished. */
  nextTurn: () => number | Promise<number>;
  /** Reports that a model call played turn `index`: the next call should play `index + 1`. Awaited before any output. */
  consumeTurn: (index: number) => void | Promise<void>;
};

export type ScriptedModelOptions = ScriptedCursor & {
  turns: ScriptedTurn[];
  modelId?: string;
};

type ToolCall = { toolCallId: string; toolName: string; input: string };
type Reply = { text: string; toolCalls: ToolCall[] };

/** Text is cut before whitespace and every 8 characters, so it arrives in word-sized deltas. */
const textChunk = /\s*\S{1,8}|\s+/gu;
const jsonChunkLength = 6;

/** A language model that plays `turns` one per call, starting where the cursor says. */
export function createScriptedModel(options: ScriptedModelOptions): LanguageModelV4 {
  const modelId = options.modelId ?? "scripted";

  async function takeReply(): Promise<Reply> {
    const index = await options.nextTurn();
    if (!Number.isInteger(index) || index < 0) throw new RangeError(`The scripted turn index must be a whole number ≥ 0, got ${index}`);
    if (index >= options.turns.length) return { text: scriptFinishedText, toolCalls: [] };
    await options.consumeTurn(index);
    const turn = options.turns[index];
    return {
      text: turn.text ?? "",
      toolCalls: (turn.toolCalls ?? []).map((call) => ({
        toolCallId: call.id ?? createId("call"),
        toolName: call.name,
        input: JSON.stringify(call.args ?? {}),
      })),
    };
  }

  return {
    specificationVersion: "v4",
    provider: "scripted",
    modelId,
    supportedUrls: {},

    async doGenerate(callOptions) {
      const reply = await takeReply();
      const content: LanguageModelV4Content[] = [];
      if (reply.text) content.push({ type: "text", text: reply.text });
      for (const call of reply.toolCalls) content.push({ type: "tool-call", ...call });
      return {
        content,
        finishReason: finishReasonOf(reply),
        usage: usageOf(callOptions, reply),
        response: { id: crypto.randomUUID(), timestamp: new Date(), modelId },
        warnings: [],
      };
    },

    async doStream(callOptions) {
      const reply = await takeReply();
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", id: crypto.randomUUID(), timestamp: new Date(), modelId },
      ];
      if (reply.text) {
        parts.push({ type: "text-start", id: "text-0" });
        for (const delta of reply.text.match(textChunk) ?? []) parts.push({ type: "text-delta", id: "text-0", delta });
        parts.push({ type: "text-end", id: "text-0" });
      }
      for (const call of reply.toolCalls) {
        parts.push({ type: "tool-input-start", id: call.toolCallId, toolName: call.toolName });
        for (const delta of splitEvery(call.input, jsonChunkLength)) parts.push({ type: "tool-input-delta", id: call.toolCallId, delta });
        parts.push({ type: "tool-input-end", id: call.toolCallId }, { type: "tool-call", ...call });
      }
      parts.push({ type: "finish", finishReason: finishReasonOf(reply), usage: usageOf(callOptions, reply) });
      return { stream: streamOf(parts, callOptions.abortSignal) };
    },
  };
}

/** One part per read, so consumers see the reply arrive piece by piece. */
function streamOf(parts: LanguageModelV4StreamPart[], abortSignal: AbortSignal | undefined): ReadableStream<LanguageModelV4StreamPart> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (abortSignal?.aborted) return controller.error(abortSignal.reason);
      const part = parts[next++];
      if (part) controller.enqueue(part);
      else controller.close();
    },
  });
}

/** Splits by code points so no delta ends inside a surrogate pair. */
function splitEvery(text: string, length: number): string[] {
  const characters = Array.from(text);
  const chunks: string[] = [];
  for (let start = 0; start < characters.length; start += length) chunks.push(characters.slice(start, start + length).join(""));
  return chunks;
}

function finishReasonOf(reply: Reply): LanguageModelV4FinishReason {
  return reply.toolCalls.length > 0 ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" };
}

/** Roughly four characters a token, like the usual rule of thumb for English. */
function usageOf(callOptions: LanguageModelV4CallOptions, reply: Reply): LanguageModelV4Usage {
  const input = estimateTokens(JSON.stringify(callOptions.prompt) + JSON.stringify(callOptions.tools ?? []));
  const output = estimateTokens(reply.text + reply.toolCalls.map((call) => call.toolName + call.input).join(""));
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
