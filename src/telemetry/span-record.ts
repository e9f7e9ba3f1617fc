/**
 * A finished span as the exporter sends it: ids in lowercase hex, times in
 * milliseconds since the epoch, attributes of the few types the gateway uses.
 */

export type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Record<string, AttributeValue>;

/** OTLP's span kinds, by the names the gateway uses. */
export type SpanKind = "internal" | "server" | "client";

export type SpanEvent = { name: string; timeMs: number; attributes?: Attributes };

/** A span this one is causally related to without being its child (OTLP's `Link`): in this trace or another. */
export type SpanLink = { traceId: string; spanId: string; sampled: boolean; attributes?: Attributes };

export type SpanRecord = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: SpanKind;
  startTimeMs: number;
  endTimeMs: number;
  attributes: Attributes;
  events?: SpanEvent[];
  links?: SpanLink[];
  status: { code: "unset" | "ok" | "error"; message?: string };
};

export const spanKindNumber: Record<SpanKind, number> = { internal: 1, server: 2, client: 3 };
export const statusCodeNumber: Record<SpanRecord["status"]["code"], number> = { unset: 0, ok: 1, error: 2 };

/** Milliseconds since the epoch as OTLP's nanoseconds (past 2^53: a bigint). */
export function unixNanos(ms: number): bigint {
  return BigInt(Math.round(ms * 1_000)) * 1_000n;
}
