/**
 * One step of a cycle: one model call (`streamText` stopped after one step),
 * its tool calls executed as their inputs complete, everything reported as it
 * streams. The cycle drives the steps itself, so each finished step can be
 * journaled before the next begins.
 */
import { isStepCount, type LanguageModel, type ModelMessage, streamText, type ToolChoice, type ToolSet } from "ai";
import { cycleEndingTools } from "../tools";
import type { StepRecord } from "./cycle-journal";
import { consumeStepStream, type StepStream } from "./cycle-stream";

export type StepInput = StepStream & {
  model: LanguageModel;
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  toolChoice: ToolChoice<ToolSet>;
  maxConcurrentTools: number;
  abortSignal: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
};

export type StepResult = { ok: true; messages: ModelMessage[]; record: StepRecord } | { ok: false; error: unknown };

export async function runStep(input: StepInput): Promise<StepResult> {
  const result = streamText({
    model: input.model,
    system: input.system,
    messages: input.messages,
    tools: input.tools,
    toolChoice: input.toolChoice,
    stopWhen: isStepCount(1),
    toolCallConcurrency: input.maxConcurrentTools,
    maxRetries: 2,
    abortSignal: input.abortSignal,
    ...(input.temperature !== undefined && { temperature: input.temperature }),
    ...(input.maxOutputTokens !== undefined && { maxOutputTokens: input.maxOutputTokens }),
  });
  const output = await consumeStepStream(result.fullStream, input);
  if (output.error !== undefined) return { ok: false, error: output.error };
  const response = await result.response;
  const stepUsage = output.usage;
  input.publish("agent.step.finished", {
    runId: input.runId,
    stepNumber: input.stepNumber,
    text: output.text,
    finishReason: output.finishReason,
    toolCallIds: output.toolCalls.map((call) => call.toolCallId),
    usage: stepUsage,
  });
  return {
    ok: true,
    messages: response.messages,
    record: {
      step: { stepNumber: input.stepNumber, text: output.text, finishReason: output.finishReason, toolCallIds: output.toolCalls.map((call) => call.toolCallId), usage: stepUsage },
      toolCalls: output.toolCalls,
    },
  };
}

/** Whether the cycle stops after this step: no tool calls (the model is done), or `skip`, `sleep` or `final_report` that did not fail. */
export function stepEndsCycle(record: StepRecord): boolean {
  return record.toolCalls.length === 0 || record.toolCalls.some((call) => cycleEndingTools.has(call.toolName) && call.status !== "failed");
}
