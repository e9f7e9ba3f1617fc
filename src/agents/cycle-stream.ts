/**
 * What a cycle does with each part of one model step's stream: report text
 * and tool calls on the agent stream, record them for the run (under the
 * gateway's call ids), and feed the tool stream observers in order (so a
 * tool's final event never overtakes its streaming events). Returns what the
 * step did and the stream's error, if any.
 */
import type { TextStreamPart, ToolSet } from "ai";
import type { RunToolCall, RunUsage } from "../db/runs";
import { type CallIds, isToolOutcome, outcomeError, outcomeFailureKind, outcomeResult, outcomeStatus, SerialQueue, type ToolOutcome, type ToolStreamObserver } from "../tools";
import { emptyUsage } from "./cycle-journal";
import type { DeferredMap } from "./deferred-map";

export type StepStream = {
  runId: string;
  stepNumber: number;
  publish(type: string, data: Record<string, unknown>): void;
  observers: ToolStreamObserver[];
  /** Resolved per model call id once its input is complete and observed. */
  settled: DeferredMap;
  callIds: CallIds;
};

export type StepOutput = { text: string; finishReason: string; toolCalls: RunToolCall[]; usage: RunUsage; error: unknown };

export function addUsage(total: RunUsage, usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number }): void {
  total.inputTokens += usage.inputTokens ?? 0;
  total.outputTokens += usage.outputTokens ?? 0;
  total.totalTokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error);
}

/** A run record entry for a call, from its outcome; also what the agent stream says of it. */
export function finishToolCall(call: RunToolCall, outcome: ToolOutcome, publish: StepStream["publish"], runId: string): void {
  call.latencyMs = Date.now() - Date.parse(call.startedAt);
  call.result = outcomeResult(outcome);
  call.status = outcomeStatus(outcome);
  const failure = outcomeError(outcome);
  if (failure !== undefined) call.error = failure;
  // What the gateway measured (provider, bytes, cache, queue, handle) rides on the outcome.
  const kind = outcomeFailureKind(outcome);
  if (kind !== undefined) call.failureKind = kind;
  const { meta } = outcome;
  if (meta) {
    if (meta.provider !== undefined) call.provider = meta.provider;
    if (meta.bytesIn !== undefined) call.bytesIn = meta.bytesIn;
    if (meta.bytesOut !== undefined) call.bytesOut = meta.bytesOut;
    if (meta.cacheHit !== undefined) call.cacheHit = meta.cacheHit;
    if (meta.queuedMs) call.queuedMs = meta.queuedMs;
    if (meta.outputHandle !== undefined) call.outputHandle = meta.outputHandle;
  }
  publish(failure !== undefined ? "tool.failed" : "tool.completed", {
    runId,
    toolCallId: call.toolCallId,
    modelToolCallId: call.modelToolCallId,
    toolName: call.toolName,
    args: call.args,
    ...(failure !== undefined ? { error: failure } : {}),
    result: call.result,
    latencyMs: call.latencyMs,
  });
}

export function newToolCall(toolCallId: string, part: { toolCallId: string; toolName: string; input: unknown }, stepNumber: number): RunToolCall {
  return { toolCallId, modelToolCallId: part.toolCallId, toolName: part.toolName, stepNumber, args: part.input, status: "running", startedAt: new Date().toISOString() };
}

export async function consumeStepStream(stream: AsyncIterable<TextStreamPart<ToolSet>>, step: StepStream): Promise<StepOutput> {
  const { runId, stepNumber, publish, observers, settled, callIds } = step;
  const observerQueue = new SerialQueue();
  const inputs = new Map<string, { toolName: string; text: string }>();
  const calls = new Map<string, RunToolCall>();
  const usage = emptyUsage();
  let text = "";
  let finishReason = "unknown";
  let error: unknown;

  for await (const part of stream) {
    switch (part.type) {
      case "text-delta":
        text += part.text;
        publish("agent.text.delta", { runId, stepNumber, delta: part.text });
        break;
      case "tool-input-start": {
        inputs.set(part.id, { toolName: part.toolName, text: "" });
        const { id, toolName } = part;
        observerQueue.run(() => Promise.all(observers.map((observer) => observer.inputStart?.(id, toolName))));
        break;
      }
      case "tool-input-delta": {
        const input = inputs.get(part.id);
        if (!input) break;
        input.text += part.delta;
        const { id } = part;
        const inputText = input.text;
        publish("tool.input.delta", { runId, toolCallId: callIds.idFor(id), modelToolCallId: id, toolName: input.toolName, delta: part.delta });
        observerQueue.run(() => Promise.all(observers.map((observer) => observer.inputDelta?.(id, input.toolName, inputText))));
        break;
      }
      case "tool-call": {
        const call = newToolCall(callIds.idFor(part.toolCallId), part, stepNumber);
        calls.set(part.toolCallId, call);
        publish("tool.requested", { runId, toolCallId: call.toolCallId, modelToolCallId: call.modelToolCallId, toolName: call.toolName, args: call.args, stepNumber });
        const { toolCallId, toolName, input } = part;
        observerQueue.run(async () => {
          await Promise.all(observers.map((observer) => observer.call?.(toolCallId, toolName, input)));
          settled.resolve(toolCallId);
        });
        break;
      }
      case "tool-result": {
        const call = calls.get(part.toolCallId);
        if (!call) break;
        // Every tool of a cycle returns a typed outcome; anything else is a value that succeeded.
        const outcome: ToolOutcome = isToolOutcome(part.output) ? part.output : { type: "ok", value: part.output };
        finishToolCall(call, outcome, publish, runId);
        break;
      }
      case "tool-error": {
        const call = calls.get(part.toolCallId) ?? newToolCall(callIds.idFor(part.toolCallId), part, stepNumber);
        calls.set(part.toolCallId, call);
        settled.resolve(part.toolCallId);
        finishToolCall(call, { type: "error", message: errorMessage(part.error) }, publish, runId);
        break;
      }
      case "finish-step":
        addUsage(usage, part.usage);
        finishReason = part.finishReason;
        break;
      case "error":
        error = part.error;
        break;
      case "abort":
        error ??= new CycleTimeoutError(part.reason);
        break;
      default:
        break;
    }
  }
  settled.resolveAll();
  await observerQueue.idle();
  return { text, finishReason, toolCalls: [...calls.values()], usage, error };
}

/** The cycle ran past `limits.cycleTimeout` and was aborted: final, not retried. */
export class CycleTimeoutError extends Error {
  constructor(reason?: string) {
    super(`The cycle was aborted${reason ? `: ${reason}` : ""} (limits.cycleTimeout)`);
    this.name = "CycleTimeoutError";
  }
}
