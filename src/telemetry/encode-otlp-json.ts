/**
 * An OTLP `ExportTraceServiceRequest` in the OTLP JSON mapping (`http/json`):
 * field names in lowerCamelCase, trace and span ids as hex strings, 64-bit
 * integers (times, int attributes) as decimal strings, enums as numbers.
 */
import type { ExportIdentity } from "./export-request";
import { type Attributes, type AttributeValue, type SpanRecord, spanKindNumber, statusCodeNumber, unixNanos } from "./span-record";

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export function encodeOtlpJson(identity: ExportIdentity, spans: readonly SpanRecord[]): string {
  const request: JsonValue = {
    resourceSpans: [
      {
        resource: { attributes: jsonAttributes(identity.resource) },
        scopeSpans: [{ scope: { name: identity.scope.name, version: identity.scope.version }, spans: spans.map(jsonSpan) }],
      },
    ],
  };
  return JSON.stringify(request);
}

function jsonSpan(span: SpanRecord): JsonValue {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
    flags: 1,
    name: span.name,
    kind: spanKindNumber[span.kind],
    startTimeUnixNano: unixNanos(span.startTimeMs).toString(),
    endTimeUnixNano: unixNanos(span.endTimeMs).toString(),
    attributes: jsonAttributes(span.attributes),
    ...(span.events?.length && {
      events: span.events.map((event) => ({ timeUnixNano: unixNanos(event.timeMs).toString(), name: event.name, attributes: jsonAttributes(event.attributes ?? {}) })),
    }),
    ...(span.links?.length && {
      links: span.links.map((link) => ({ traceId: link.traceId, spanId: link.spanId, flags: link.sampled ? 1 : 0, attributes: jsonAttributes(link.attributes ?? {}) })),
    }),
    status: { code: statusCodeNumber[span.status.code], ...(span.status.message && { message: span.status.message }) },
  };
}

function jsonAttributes(attributes: Attributes): JsonValue[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: jsonValue(value) }));
}

function jsonValue(value: AttributeValue): JsonValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { arrayValue: { values: value.map(jsonValue) } };
}
