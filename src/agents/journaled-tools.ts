/**
 * Wraps every tool of a cycle so the journal sees each call: recorded before
 * it executes (under its gateway id), its outcome recorded when it ends.
 * Arguments nested past the gateway's depth limit never reach a tool. A
 * call the journal already finished is not executed again; one it only saw
 * start is executed again with the same id (the tools make that safe: they
 * find their pending row, their card, their reply, and gateway requests carry
 * the id as `idempotency-key`: at least once, with the key). A call a person
 * approved is the exception: it is journaled as dispatched before its tool
 * runs, and one that was dispatched but has no outcome is never run again
 * (at most once after a yes; the model is told it may not have finished).
 * The model sees outcomes through one mapping (`toModelOutput`); nothing is
 * ever thrown at the SDK.
 */
import { asSchema, type Tool, type ToolSet } from "ai";
import { checkJsonDepth } from "../json";
import type { CallIds } from "../tools/engine/call-ids";
import { failed, isToolOutcome, toModelOutput, type ToolOutcome } from "../tools/engine/tool-outcome";
import type { CycleJournal } from "./cycle-journal";

export type JournalPosition = { runId: string; step(): number };

/**
 * What stands between a call and its tool (an approval): the input to run
 * with, or the outcome that ends the call without running it.
 */
export type CallGate = (call: {
  toolName: string;
  toolCallId: string;
  modelToolCallId: string;
  input: unknown;
  abortSignal?: AbortSignal;
}) => Promise<{ run: true; input: unknown; edited: boolean; approved: boolean } | { run: false; outcome: ToolOutcome }>;

/** What the model is told of an approved call a restart cut off after it was handed to its tool. */
export function interruptedAfterApproval(name: string, toolCallId: string): ToolOutcome {
  return failed(
    `The approved call to "${name}" was interrupted by a restart after it started (idempotency-key ${toolCallId}). ` +
      "It was not run again, so it ran at most once; it may or may not have taken effect. Check before calling it again.",
  );
}

export function journalTools(tools: ToolSet, journal: CycleJournal, callIds: CallIds, position: JournalPosition, gate?: CallGate): ToolSet {
  const wrapped: Record<string, Tool> = {};
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute;
    if (!execute) continue;
    wrapped[name] = {
      ...definition,
      execute: async (input: unknown, options: Parameters<typeof execute>[1]) => {
        const toolCallId = callIds.idFor(options.toolCallId);
        // Arguments nested deeper than any request may be never reach a tool (nor the journal).
        const depth = checkJsonDepth(input);
        if (!depth.ok) return failed(`Invalid arguments for tool "${name}": ${depth.message}`);
        const known = journal.call(toolCallId);
        if (known?.outcome) return known.outcome;
        if (known?.dispatched) return journal.callFinished(toolCallId, interruptedAfterApproval(name, toolCallId));
        if (!known) {
          journal.callStarted({ toolCallId, modelToolCallId: options.toolCallId, runId: position.runId, step: position.step(), toolName: name, input, startedAt: Date.now() });
        }
        let outcome: ToolOutcome;
        try {
          const passed = gate ? await gate({ toolName: name, toolCallId, modelToolCallId: options.toolCallId, input, abortSignal: options.abortSignal }) : { run: true as const, input, edited: false, approved: false };
          if (!passed.run) return journal.callFinished(toolCallId, passed.outcome);
          // Arguments a person edited are held to the tool's own schema, like the model's were.
          const checked = passed.edited ? await asSchema(definition.inputSchema).validate?.(passed.input) : undefined;
          if (checked && !checked.success) return journal.callFinished(toolCallId, failed(`Tool "${name}" was approved with arguments it refuses: ${checked.error.message}`));
          // Journaled before it runs: a restart from here on does not run an approved call a second time.
          if (passed.approved) journal.markDispatched(toolCallId);
          const value: unknown = await execute((checked?.success ? checked.value : passed.input) as never, options);
          outcome = isToolOutcome(value) ? value : { type: "ok", value };
        } catch (error) {
          console.error("tool threw", name, toolCallId, error);
          outcome = failed(`Tool "${name}" failed unexpectedly; the gateway logged the cause`);
        }
        return journal.callFinished(toolCallId, outcome);
      },
      toModelOutput: ({ output }: { output: unknown }) => toModelOutput(isToolOutcome(output) ? output : { type: "ok", value: output }),
    } as Tool;
  }
  return wrapped;
}
