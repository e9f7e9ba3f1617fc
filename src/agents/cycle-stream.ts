/**
 * What a cycle does with each part of the model's stream: report text, steps
 * and tool calls on the agent stream, record them for the run, and feed the
 * tool stream observers in order (so a tool's final event never overtakes its
 * streaming events). Returns the stream's error, if any.
 */
import type { TextStreamPart, ToolSet } from "ai";
import type { RunStep, RunToolCall, RunUsage } from "../db/runs";
import { resultError } from "../tools/engine/cap-result";
import { SerialQueue } from "../tools/serial-queue";
import type { DeferredMap } from "./deferred-map";
import type { ToolStreamObserver } from "./tool-stream-observer";

export type CycleRecord = {
  runId: string;
  publish(type: string, data: Record<string, unknown>): void;
  observers: ToolStreamObserver[];
  settled: DeferredMap;
  toolCalls: Map<string, RunToolCall>;
  steps: RunStep[];
  usage: RunUsage;
};

export function emptyUsage(): RunUsage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

function addUsage(total: RunUsage, usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number }): void {
  total.inputTokens += usage.inputTokens ?? 0;
  total.outputTokens += usage.outputTokens ?? 0;
  total.totalTokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error);
}

function newToolCall(part: { toolCallId: string; toolName: string; input: unknown }, stepNumber: number, status: RunToolCall["status"]): RunToolCall {
  return { toolCallId: part.toolCallId, toolName: part.toolName, stepNumber, args: part.input, status, startedAt: new Date().toISOString() };
}

export async function consumeCycleStream(stream: AsyncIterable<TextStreamPart<ToolSet>>, record: CycleRecord): Promise<unknown> {
  const { runId, publish, observers, settled, toolCalls, steps, usage } = record;
  const observerQueue = new SerialQueue();
  const inputs = new Map<string, { toolName: string; text: string }>();
  let stepNumber = 0;
  let stepText = "";
  let stepCalls: string[] = [];
  let streamError: unknown;

  for await (const part of stream) {
    switch (part.type) {
      case "text-delta":
        stepText += part.text;
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
        const text = input.text;
        publish("tool.input.delta", { runId, toolCallId: id, toolName: input.toolName, delta: part.delta });
        observerQueue.run(() => Promise.all(observers.map((observer) => observer.inputDelta?.(id, input.toolName, text))));
        break;
      }
      case "tool-call": {
        const call = newToolCall(part, stepNumber, "running");
        toolCalls.set(part.toolCallId, call);
        stepCalls.push(part.toolCallId);
        publish("tool.requested", { runId, toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, stepNumber });
        const { toolCallId, toolName, input } = part;
        observerQueue.run(async () => {
          await Promise.all(observers.map((observer) => observer.call?.(toolCallId, toolName, input)));
          settled.resolve(toolCallId);
        });
        break;
      }
      case "tool-result": {
        const call = toolCalls.get(part.toolCallId);
        if (!call) break;
        call.latencyMs = Date.now() - Date.parse(call.startedAt);
        call.result = part.output;
        const failure = resultError(part.output);
        const pending = typeof part.output === "object" && part.output !== null && "status" in part.output && part.output.status === "pending";
        call.status = failure ? "failed" : pending ? "pending" : "completed";
        if (failure) call.error = failure;
        publish(failure ? "tool.failed" : "tool.completed", {
          runId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          args: call.args,
          ...(failure ? { error: failure } : {}),
          result: part.output,
          latencyMs: call.latencyMs,
        });
        break;
      }
      case "tool-error": {
        const call = toolCalls.get(part.toolCallId) ?? newToolCall(part, stepNumber, "failed");
        toolCalls.set(part.toolCallId, call);
        settled.resolve(part.toolCallId);
        call.status = "failed";
        call.error = errorMessage(part.error);
        call.latencyMs = Date.now() - Date.parse(call.startedAt);
        publish("tool.failed", { runId, toolCallId: call.toolCallId, toolName: call.toolName, args: call.args, error: call.error, latencyMs: call.latencyMs });
        break;
      }
      case "finish-step": {
        const stepUsage = emptyUsage();
        addUsage(stepUsage, part.usage);
        steps.push({ stepNumber, text: stepText, finishReason: part.finishReason, toolCallIds: stepCalls, usage: stepUsage });
        publish("agent.step.finished", { runId, stepNumber, text: stepText, finishReason: part.finishReason, toolCallIds: stepCalls, usage: stepUsage });
        stepNumber += 1;
        stepText = "";
        stepCalls = [];
        break;
      }
      case "finish":
        addUsage(usage, part.totalUsage);
        break;
      case "error":
        streamError = part.error;
        break;
      case "abort":
        streamError ??= new Error(`The cycle was aborted${part.reason ? `: ${part.reason}` : ""} (limits.cycleTimeout)`);
        break;
      default:
        break;
    }
  }
  settled.resolveAll();
  await observerQueue.idle();
  return streamError;
}
