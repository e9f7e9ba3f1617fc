/**
 * What a tool call ends with, as a discriminated union: the one thing the
 * engine returns, the journal stores and the run record reports. How the model
 * sees it is decided here, once (`toModelOutput`), so a result's own fields
 * (an upstream API answering `{"error": …}` or `{"status": "pending"}`) never
 * change how it is treated. What the gateway itself knows about a call rides
 * beside the value, typed: why a failure failed (`kind`), media the model
 * should see as media (`content`), and the call's numbers (`meta`).
 */
import type { ToolResultPart } from "ai";
import { z } from "zod";

/** Why a call failed, for statistics (`failures` by kind; `internal` is the gateway's own fault). */
export const FailureKind = z.enum(["validation", "timeout", "upstream", "permission", "internal"]);
export type FailureKind = z.infer<typeof FailureKind>;

/** What the gateway measured about a call (the run record and the statistics show it). */
export const CallMeta = z
  .object({
    /** The provider the tool came from (`builtin`, `tools`, an MCP server's or a provider's name). */
    provider: z.string(),
    bytesIn: z.number(),
    /** The whole output's size, before any cut. */
    bytesOut: z.number(),
    cacheHit: z.boolean(),
    /** Time spent waiting for a queue slot. */
    queuedMs: z.number(),
    /** Set when the whole output was stored behind a handle. */
    outputHandle: z.string(),
    /** Who executed a call answered from outside, as the answer said (its card records it). */
    executedBy: z.object({ source: z.string().optional(), clientId: z.string().optional() }),
  })
  .partial();
export type CallMeta = z.infer<typeof CallMeta>;
export type ExecutedBy = NonNullable<CallMeta["executedBy"]>;

/** A part of what the model sees: text, or media (base64) for models that take media in tool results. */
export const ModelContentPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("media"), data: z.string(), mediaType: z.string() }),
]);
export type ModelContentPart = z.infer<typeof ModelContentPart>;

export const ToolOutcome = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("ok"),
    value: z.unknown(),
    /** When set, the model sees these parts (text and media) instead of the value as JSON. */
    content: z.array(ModelContentPart).optional(),
    meta: CallMeta.optional(),
  }),
  z.object({ type: z.literal("error"), message: z.string(), kind: FailureKind.optional(), meta: CallMeta.optional() }),
  /** Accepted for later: the result arrives in the inbox as a `tool_result` event. */
  z.object({ type: z.literal("pending"), callId: z.string(), meta: CallMeta.optional() }),
  z.object({ type: z.literal("expired"), message: z.string(), meta: CallMeta.optional() }),
]);

export type ToolOutcome = z.infer<typeof ToolOutcome>;

export const succeeded = (value: unknown): ToolOutcome => ({ type: "ok", value: value === undefined ? null : value });
export const failed = (message: string, kind?: FailureKind): ToolOutcome => ({ type: "error", message, ...(kind && { kind }) });

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

/** Why an outcome failed (an expiry is a timeout; a failure nobody classified is `internal`), or undefined. */
export function outcomeFailureKind(outcome: ToolOutcome): FailureKind | undefined {
  if (outcome.type === "expired") return "timeout";
  if (outcome.type === "error") return outcome.kind ?? "internal";
  return undefined;
}

/** The tool-call status a run record shows. */
export function outcomeStatus(outcome: ToolOutcome): "completed" | "failed" | "pending" {
  return outcome.type === "ok" ? "completed" : outcome.type === "pending" ? "pending" : "failed";
}

/** How the model sees an outcome: failures as the AI SDK's error output, never as a look-alike result. */
export function toModelOutput(outcome: ToolOutcome): ToolResultPart["output"] {
  const result = outcomeResult(outcome);
  if (outcome.type === "error" || outcome.type === "expired") return { type: "error-json", value: result as { error: string } };
  if (outcome.type === "ok" && outcome.content !== undefined) {
    return {
      type: "content",
      value: outcome.content.map((part) =>
        part.type === "text" ? { type: "text" as const, text: part.text } : { type: "file" as const, data: { type: "data" as const, data: part.data }, mediaType: part.mediaType },
      ),
    };
  }
  if (typeof result === "string") return { type: "text", value: result };
  return { type: "json", value: (result ?? null) as never };
}

/** The outcome with `meta` merged in (the fields given win). */
export function withMeta(outcome: ToolOutcome, meta: CallMeta): ToolOutcome {
  return { ...outcome, meta: { ...outcome.meta, ...meta } };
}

export function isToolOutcome(value: unknown): value is ToolOutcome {
  return ToolOutcome.safeParse(value).success;
}
