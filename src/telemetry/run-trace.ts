/**
 * A run's trace, kept with the run in the agent's journal so every attempt
 * (a retry, a fresh object after a restart) puts its spans in the same
 * trace, under the same root span, which is written once when the run ends.
 * The trace is the caller's when the run's first event carried a valid
 * `traceparent` (a message post, an inbox event, a tool result).
 */
import { z } from "zod";
import { newSpanId, newTraceId, parseTraceparent, type TraceContext } from "./trace-context";

export const RunTrace = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  /** The root span's id (`invoke_agent`). */
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  /** The caller's span, when a request carried a `traceparent`. */
  parentSpanId: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  sampled: z.boolean(),
  /** `gen_ai.conversation.id`: the space whose message started the run, else the run. */
  conversationId: z.string(),
});
export type RunTrace = z.infer<typeof RunTrace>;

/** A new run's trace: a child of the first valid `traceparent` among its events, else a trace of its own. */
export function startRunTrace(traceparents: readonly (string | undefined)[], conversationId: string): RunTrace {
  const parent = traceparents.map(parseTraceparent).find((context) => context !== undefined);
  return {
    traceId: parent?.traceId ?? newTraceId(),
    spanId: newSpanId(),
    ...(parent && { parentSpanId: parent.spanId }),
    sampled: parent?.sampled ?? true,
    conversationId,
  };
}

/** The root span as a parent of the attempt's spans. */
export const rootContext = (trace: RunTrace): TraceContext => ({ traceId: trace.traceId, spanId: trace.spanId, sampled: trace.sampled });
