/**
 * `batch`: several tool calls in one, each with its own result, at most
 * `limits.maxConcurrentTools` at a time. The calls go through the cycle's
 * tool pipeline like the model's own (validation, cards, cache, queue, output
 * limit, context budget, statistics), under ids derived from the batch call's
 * id, so doing the batch again after a restart finds what its calls made
 * (cards, replies, idempotency keys). Calls that end the cycle or wait for a
 * person or a service cannot run inside a batch: they must be the model's own
 * calls; the pipeline's gate refuses those that need a person's approval.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { CycleAccess, JournalAccess, RunIdentity, SettingsAccess, StreamAccess } from "../engine/tool-context";
import { cycleEndingTools } from "../config/builtin-tool-names";
import { failed, outcomeError, outcomeResult, succeeded, type ToolOutcome } from "../engine/tool-outcome";

export const maxBatchCalls = 20;

const schema = zodSchema(
  z.object({
    calls: z
      .array(z.object({ tool: z.string().min(1).max(128).describe("A tool's name"), args: z.record(z.string(), z.unknown()).optional().describe("Its arguments") }))
      .min(1)
      .max(maxBatchCalls),
  }),
);

type BatchResult = { tool: string; ok: true; result: unknown } | { tool: string; ok: false; error: string };

export function createBatchTool(context: RunIdentity & SettingsAccess & JournalAccess & StreamAccess & CycleAccess) {
  const notInBatch = (name: string): string | undefined => {
    if (name === "batch") return "batch cannot contain batch";
    if (cycleEndingTools.has(name)) return `${name} ends the cycle: call it yourself, not inside batch`;
    const configured = context.config.tools.find((candidate) => candidate.name === name);
    if (configured && (configured.executionType === "external" || configured.executionType === "space")) {
      return `${name} waits for a person or a service: call it yourself, not inside batch`;
    }
    return undefined;
  };

  const runOne = async (name: string, args: unknown, modelToolCallId: string, toolCallId: string, abortSignal: AbortSignal | undefined): Promise<ToolOutcome> => {
    const refused = notInBatch(name);
    if (refused) return failed(refused);
    return context.runBatched({ toolName: name, input: args, modelToolCallId, toolCallId, abortSignal });
  };

  return {
    batch: tool({
      description: `Run several tool calls in one (at most ${maxBatchCalls}); each gets its own result, in order. They run side by side (a few at a time), so do not batch calls that depend on each other.`,
      inputSchema: schema,
      execute: async ({ calls }, { toolCallId: modelToolCallId, abortSignal }) => {
        const batchId = context.callIds.idFor(modelToolCallId);
        const results: BatchResult[] = new Array(calls.length);
        let next = 0;
        const worker = async () => {
          for (let index = next++; index < calls.length; index = next++) {
            const call = calls[index];
            const innerId = `${batchId}_${index}`;
            const outcome = await runOne(call.tool, call.args ?? {}, `${modelToolCallId}~${index}`, innerId, abortSignal);
            const error = outcomeError(outcome);
            results[index] = error === undefined ? { tool: call.tool, ok: true, result: outcomeResult(outcome) } : { tool: call.tool, ok: false, error };
            context.publish(error === undefined ? "tool.completed" : "tool.failed", {
              runId: context.runId,
              toolCallId: innerId,
              toolName: call.tool,
              batchToolCallId: batchId,
              args: call.args ?? {},
              ...(error === undefined ? { result: outcomeResult(outcome) } : { error }),
            });
          }
        };
        const width = Math.min(context.config.limits.maxConcurrentTools, calls.length);
        await Promise.all(Array.from({ length: width }, worker));
        // The pipeline's output limit stores a result too large to show behind a handle.
        return succeeded({ results });
      },
    }),
  };
}
