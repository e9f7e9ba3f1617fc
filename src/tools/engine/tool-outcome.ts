/**
 * What a tool call ends with, as a discriminated union: the one thing the
 * engine returns, the journal stores and the run record reports. How the model
 * sees it is decided here, once (`toModelOutput`), so a result's own fields
 * (an upstream API answering `{"error": …}` or `{"status": "pending"}`) never
 * change how it is treated.
 */
import type { ToolResultPart } from "ai";
import { z } from "zod";

export const ToolOutcome = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ok"), value: z.unknown() }),
  z.object({ type: z.literal("error"), message: z.string() }),
  /** Accepted for later: the result arrives in the inbox as a `tool_result` event. */
  z.object({ type: z.literal("pending"), callId: z.string() }),
  z.object({ type: z.literal("expired"), message: z.string() }),
]);

export type ToolOutcome = z.infer<typeof ToolOutcome>;

export const succeeded = (value: unknown): ToolOutcome => ({ type: "ok", value: value === undefined ? null : value });
export const failed = (message: string): ToolOutcome => ({ type: "error", message });

/** The value the model, the agent stream and the run record show for an outcome. */
export function outcomeResult(outcome: ToolOutcome): unknown {
  switch (outcome.type) {
    case "ok":
      return outcome.value;
    case "pending":
      return { status: "pending", pendingToolCallId: outcome.callId };
    case "error":
    case "expired":
      return { error: outcome.message };
  }
}

/** The error text of a failed outcome, or undefined when it did not fail. */
export function outcomeError(outcome: ToolOutcome): string | undefined {
  return outcome.type === "error" || outcome.type === "expired" ? outcome.message : undefined;
}

/** The tool-call status a run record shows. */
export function outcomeStatus(outcome: ToolOutcome): "completed" | "failed" | "pending" {
  return outcome.type === "ok" ? "completed" : outcome.type === "pending" ? "pending" : "failed";
}

/** How the model sees an outcome: failures as the AI SDK's error output, never as a look-alike result. */
export function toModelOutput(outcome: ToolOutcome): ToolResultPart["output"] {
  const result = outcomeResult(outcome);
  if (outcome.type === "error" || outcome.type === "expired") return { type: "error-json", value: result as { error: string } };
  if (typeof result === "string") return { type: "text", value: result };
  return { type: "json", value: (result ?? null) as never };
}

export function isToolOutcome(value: unknown): value is ToolOutcome {
  return ToolOutcome.safeParse(value).success;
}
