/**
 * Finishes a step a restart cut short. The model's output for it is whatever
 * calls had started executing (the journal has them, in order); a call whose
 * input had not finished streaming never ran and is dropped, as is text the
 * model had not finished. Calls with an outcome keep it; the others are done
 * again under their own ids, through the tool pipeline like any call (a
 * pending call re-attaches to its row, a reply finds its message, a gateway
 * request carries the same idempotency key; an approved call that was
 * dispatched is not run again).
 * The step then ends as if the model had produced exactly those calls.
 */
import type { ModelMessage } from "ai";
import type { RunToolCall } from "../db/runs";
import { toModelOutput, type ToolOutcome, type ToolPipeline } from "../tools";
import type { JournalCall, StepRecord } from "./cycle-journal";
import { emptyUsage } from "./cycle-journal";
import { finishToolCall } from "./cycle-stream";
import type { DeferredMap } from "./deferred-map";

export type ContinuedStep = { messages: ModelMessage[]; record: StepRecord; reused: number; redone: number };

export async function continueStep(input: {
  calls: JournalCall[];
  pipeline: Pick<ToolPipeline, "run">;
  messages: ModelMessage[];
  runId: string;
  stepNumber: number;
  settled: DeferredMap;
  abortSignal: AbortSignal;
  publish(type: string, data: Record<string, unknown>): void;
}): Promise<ContinuedStep> {
  const { calls, pipeline } = input;
  let redone = 0;
  const outcomes = await Promise.all(
    calls.map(async (call): Promise<ToolOutcome> => {
      if (call.outcome) return call.outcome;
      redone += 1;
      // Its input is complete (it was executing): nothing streams any more.
      input.settled.resolve(call.modelToolCallId);
      // The journal has it open: the pipeline finds it there, runs it again (or not, if an approved call was dispatched) and records its outcome.
      return pipeline.run({ toolName: call.toolName, modelToolCallId: call.modelToolCallId, input: call.input, abortSignal: input.abortSignal, messages: input.messages });
    }),
  );

  const toolCalls: RunToolCall[] = calls.map((call, index) => {
    const record: RunToolCall = {
      toolCallId: call.toolCallId,
      modelToolCallId: call.modelToolCallId,
      toolName: call.toolName,
      stepNumber: input.stepNumber,
      args: call.input,
      status: "running",
      startedAt: new Date(call.startedAt).toISOString(),
    };
    // A call that finished before the restart was reported then: it is only recorded here.
    finishToolCall(record, outcomes[index], call.outcome ? () => undefined : input.publish, input.runId);
    return record;
  });

  const messages: ModelMessage[] = [
    {
      role: "assistant",
      content: calls.map((call) => ({ type: "tool-call" as const, toolCallId: call.modelToolCallId, toolName: call.toolName, input: call.input })),
    },
    {
      role: "tool",
      content: calls.map((call, index) => ({ type: "tool-result" as const, toolCallId: call.modelToolCallId, toolName: call.toolName, output: toModelOutput(outcomes[index]) })),
    },
  ];
  return {
    messages,
    record: {
      step: { stepNumber: input.stepNumber, text: "", finishReason: "tool-calls", toolCallIds: calls.map((call) => call.toolCallId), usage: emptyUsage() },
      toolCalls,
    },
    reused: calls.length - redone,
    redone,
  };
}
