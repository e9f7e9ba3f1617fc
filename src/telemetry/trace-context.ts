/**
 * W3C Trace Context: the `traceparent` header a request may carry, and the
 * ids of the spans the gateway makes. A value that is not a well-formed
 * `traceparent` is ignored (the run starts a trace of its own), never an
 * error: tracing must not refuse work.
 */

/** Where a span sits: its trace, its own id, and whether the trace is being recorded. */
export type TraceContext = { traceId: string; spanId: string; sampled: boolean };

export const traceparentHeader = "traceparent";

/** Version, trace id, parent id, flags; a later version may add fields after the flags. */
const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const zeroTraceId = "0".repeat(32);
const zeroSpanId = "0".repeat(16);

/** The trace context a `traceparent` value carries, or undefined when it is missing or malformed. */
export function parseTraceparent(value: unknown): TraceContext | undefined {
  if (typeof value !== "string" || value.length > 512) return undefined;
  const match = traceparentPattern.exec(value.trim());
  if (!match) return undefined;
  const [, version = "", traceId = "", spanId = "", flags = "", rest] = match;
  // "ff" is never a version, and version 00 has exactly four fields.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === zeroTraceId || spanId === zeroSpanId) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? "01" : "00"}`;
}

/** A `traceparent` read from a request, kept as its canonical form (or nothing). */
export function readTraceparent(value: unknown): string | undefined {
  const context = parseTraceparent(value);
  return context && formatTraceparent(context);
}

function randomHex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  // All zeros is not a valid id: the chance is nil, the rule is cheap.
  if (values.every((byte) => byte === 0)) values[0] = 1;
  return Array.from(values, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

/** `{traceparent}` to spread into an event when `value` is a valid one, else nothing. */
export function traceparentOf(value: unknown): { traceparent?: string } {
  const traceparent = readTraceparent(value);
  return traceparent === undefined ? {} : { traceparent };
}
