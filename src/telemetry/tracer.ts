/**
 * Spans as the cycle and the tool pipeline make them. A `SpanParent` is
 * where new spans go (the run's root span, a tool call's span); a `Span` is
 * one under way, recorded when it ends. With tracing off every span is
 * `noopSpan`: no ids, no clock reads, no `traceparent` sent.
 */
import { formatTraceparent, newSpanId, type TraceContext } from "./trace-context";
import type { Attributes, SpanKind, SpanRecord } from "./span-record";

/** Where finished spans go (the object's exporter). */
export type SpanSink = { add(span: SpanRecord): void };

export type SpanParent = {
  /** The `traceparent` of this span for a request it makes, when tracing is on. */
  readonly traceparent: string | undefined;
  child(name: string, options?: { kind?: SpanKind; attributes?: Attributes }): Span;
};

export type Span = SpanParent & {
  setAttributes(attributes: Attributes): void;
  /** Ends as an error: `errorType` is the `error.type` attribute, `message` the status message (fixed words, never content). */
  fail(errorType: string, message?: string): void;
  end(): void;
};

export const noopSpan: Span = {
  traceparent: undefined,
  child: () => noopSpan,
  setAttributes: () => undefined,
  fail: () => undefined,
  end: () => undefined,
};

class RecordingSpan implements Span {
  readonly #sink: SpanSink;
  readonly #record: SpanRecord;
  #ended = false;

  constructor(sink: SpanSink, record: SpanRecord) {
    this.#sink = sink;
    this.#record = record;
  }

  get traceparent(): string {
    return formatTraceparent({ traceId: this.#record.traceId, spanId: this.#record.spanId, sampled: true });
  }

  child(name: string, options: { kind?: SpanKind; attributes?: Attributes } = {}): Span {
    return startSpan(this.#sink, { traceId: this.#record.traceId, spanId: this.#record.spanId, sampled: true }, name, options);
  }

  setAttributes(attributes: Attributes): void {
    Object.assign(this.#record.attributes, attributes);
  }

  fail(errorType: string, message?: string): void {
    this.#record.attributes["error.type"] = errorType;
    this.#record.status = { code: "error", ...(message !== undefined && { message }) };
  }

  /** Once: a second end changes nothing. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#record.endTimeMs = Date.now();
    this.#sink.add(this.#record);
  }
}

function startSpan(sink: SpanSink, parent: TraceContext, name: string, options: { kind?: SpanKind; attributes?: Attributes }): Span {
  const now = Date.now();
  return new RecordingSpan(sink, {
    traceId: parent.traceId,
    spanId: newSpanId(),
    parentSpanId: parent.spanId,
    name,
    kind: options.kind ?? "internal",
    startTimeMs: now,
    endTimeMs: now,
    attributes: { ...options.attributes },
    status: { code: "unset" },
  });
}

/**
 * The spans of one object: under a span started elsewhere (the run's root,
 * kept in the journal across attempts), and whole spans written at once.
 * Off (no sink), it makes nothing.
 */
export class Tracer {
  readonly #sink: SpanSink | undefined;

  constructor(sink: SpanSink | undefined) {
    this.#sink = sink;
  }

  get enabled(): boolean {
    return this.#sink !== undefined;
  }

  /** Where spans under `context` go; nothing is recorded for a trace its caller did not sample. */
  under(context: TraceContext | undefined): SpanParent {
    const sink = this.#sink;
    if (!sink || !context) return noopSpan;
    if (!context.sampled) return { traceparent: formatTraceparent(context), child: () => noopSpan };
    return { traceparent: formatTraceparent(context), child: (name, options = {}) => startSpan(sink, context, name, options) };
  }

  /** A span whose whole life is known (the run's root, written when the run ends). */
  record(span: SpanRecord): void {
    this.#sink?.add(span);
  }
}

/** The `traceparent` header of a span, for a request it makes (nothing when tracing is off). */
export function traceHeader(span: SpanParent | undefined): { traceparent?: string } {
  const traceparent = span?.traceparent;
  return traceparent === undefined ? {} : { traceparent };
}
