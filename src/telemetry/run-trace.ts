/**
 * A run's trace, kept with the run in the agent's journal so every attempt
 * (a retry, a fresh object after a restart) puts its spans in the same
 * trace, under the same root span, which is written once when the run ends.
 * The trace is the caller's when one of the run's events carried a valid
 * `traceparent` (a message post, an inbox event, a sub-agent's task). A run
 * woken by the answers of calls an earlier run made (a late or asynchronous
 * result) is not their child: its root span links to each call's span.
 */
import { z } from "zod";
import { newSpanId, newTraceId, parseTraceparent, type TraceContext } from "./trace-context";

/** At most this many links on a run's root span (OpenTelemetry's default link limit). */
export const maxRunLinks = 128;

/** A call of an earlier run whose answer woke this one: its span, and the call. */
const RunLink = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  sampled: z.boolean(),
  toolCallId: z.string(),
});

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
  /** The calls whose answers woke the run (absent from runs begun before runs kept links). */
  links: z.array(RunLink).max(maxRunLinks).optional(),
});
export type RunTrace = z.infer<typeof RunTrace>;

/**
 * A new run's trace: a child of the first valid `traceparent` among its
 * events, else a trace of its own; linked to the span of each call in
 * `answered` whose answer woke it (those with a valid `traceparent`).
 */
export function startRunTrace(
  traceparents: readonly (string | undefined)[],
  conversationId: string,
  answered: readonly { toolCallId: string; traceparent?: string }[] = [],
): RunTrace {
  const parent = traceparents.map(parseTraceparent).find((context) => context !== undefined);
  const links = answered
    .flatMap(({ toolCallId, traceparent }) => {
      const context = parseTraceparent(traceparent);
      return context ? [{ ...context, toolCallId }] : [];
    })
    .slice(0, maxRunLinks);
  return {
    traceId: parent?.traceId ?? newTraceId(),
    spanId: newSpanId(),
    ...(parent && { parentSpanId: parent.spanId }),
    sampled: parent?.sampled ?? true,
    conversationId,
    ...(links.length > 0 && { links }),
  };
}

/** The root span as a parent of the attempt's spans. */
export const rootContext = (trace: RunTrace): TraceContext => ({ traceId: trace.traceId, spanId: trace.spanId, sampled: trace.sampled });
