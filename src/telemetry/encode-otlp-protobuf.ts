/**
 * An OTLP `ExportTraceServiceRequest` in protobuf (`http/protobuf`): one
 * resource, one scope, the spans. Field numbers are those of
 * opentelemetry/proto/trace/v1/trace.proto and common/v1/common.proto.
 */
import type { ExportIdentity } from "./export-request";
import { hexBytes, ProtobufWriter } from "./protobuf-writer";
import { type Attributes, type AttributeValue, type SpanRecord, spanKindNumber, statusCodeNumber, unixNanos } from "./span-record";

export function encodeOtlpProtobuf(identity: ExportIdentity, spans: readonly SpanRecord[]): Uint8Array {
  return new ProtobufWriter()
    .message(1, (resourceSpans) => {
      resourceSpans.message(1, (resource) => writeAttributes(resource, 1, identity.resource));
      resourceSpans.message(2, (scopeSpans) => {
        scopeSpans.message(1, (scope) => scope.string(1, identity.scope.name).string(2, identity.scope.version));
        for (const span of spans) scopeSpans.message(2, (writer) => writeSpan(writer, span));
      });
    })
    .finish();
}

function writeSpan(writer: ProtobufWriter, span: SpanRecord): void {
  writer.bytes(1, hexBytes(span.traceId)).bytes(2, hexBytes(span.spanId));
  if (span.parentSpanId) writer.bytes(4, hexBytes(span.parentSpanId));
  writer.string(5, span.name).varint(6, spanKindNumber[span.kind]).fixed64(7, unixNanos(span.startTimeMs)).fixed64(8, unixNanos(span.endTimeMs));
  writeAttributes(writer, 9, span.attributes);
  for (const event of span.events ?? []) {
    writer.message(11, (eventWriter) => {
      eventWriter.fixed64(1, unixNanos(event.timeMs)).string(2, event.name);
      writeAttributes(eventWriter, 3, event.attributes ?? {});
    });
  }
  for (const link of span.links ?? []) {
    writer.message(13, (linkWriter) => {
      linkWriter.bytes(1, hexBytes(link.traceId)).bytes(2, hexBytes(link.spanId));
      writeAttributes(linkWriter, 4, link.attributes ?? {});
      // The W3C trace flags of the linked span (sampled or not).
      linkWriter.fixed32(6, link.sampled ? 0x01 : 0x00);
    });
  }
  writer.message(15, (status) => status.string(2, span.status.message ?? "").varint(3, statusCodeNumber[span.status.code]));
  // The W3C trace flags (sampled), and that the parent's remoteness is not said.
  writer.fixed32(16, 0x01);
}

function writeAttributes(writer: ProtobufWriter, field: number, attributes: Attributes): void {
  for (const [key, value] of Object.entries(attributes)) {
    writer.message(field, (keyValue) => keyValue.string(1, key).message(2, (any) => writeValue(any, value)));
  }
}

/** An `AnyValue`: string 1, bool 2, int64 3, double 4, array 5. */
function writeValue(writer: ProtobufWriter, value: AttributeValue): void {
  // Each is a oneof member: written even at its default, so the value keeps its type.
  if (typeof value === "string") writer.string(1, value, true);
  else if (typeof value === "boolean") writer.varint(2, value, true);
  else if (Number.isSafeInteger(value)) writer.varint(3, value as number, true);
  else if (typeof value === "number") writer.double(4, value, true);
  else
    writer.message(5, (array) => {
      for (const item of value) array.message(1, (any) => writeValue(any, item));
    });
}
