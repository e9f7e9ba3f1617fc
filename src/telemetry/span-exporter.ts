/**
 * Sends finished spans to the OTLP endpoint in batches, never in a run's
 * way: spans wait in a bounded buffer (per object), a batch leaves when the
 * buffer reaches `batchSize` or when the object flushes at the end of a
 * cycle, each request is bounded in time and at most `maxInFlight` are out
 * at once. Nothing waits for an export: `flush` is handed to `waitUntil`.
 * A span that finds the buffer full, or whose request fails (the endpoint
 * is down, slow past the timeout, or answers an error), is dropped and
 * counted; drops are reported through `onDropped`, a flush at a time.
 */
import { encodeOtlpJson } from "./encode-otlp-json";
import { encodeOtlpProtobuf } from "./encode-otlp-protobuf";
import type { ExportIdentity } from "./export-request";
import type { OtlpConfig } from "./otlp-config";
import type { SpanRecord } from "./span-record";

export type DropReason = "buffer_full" | "export_failed";

export type ExporterCounters = { exported: number; dropped: number; droppedBufferFull: number; droppedExportFailed: number };

export type ExporterOptions = {
  identity: ExportIdentity;
  /** Spans held at most; one more is dropped. */
  maxBuffer?: number;
  /** Spans per request; a buffer this full is flushed at once. */
  batchSize?: number;
  /** Requests out at once; past it spans wait in the buffer. */
  maxInFlight?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Keeps an export going past the current request or cycle (`ctx.waitUntil`). */
  keepAlive(promise: Promise<unknown>): void;
  onDropped?(drop: { count: number; reason: DropReason; counters: ExporterCounters }): void;
};

export const exporterDefaults = { maxBuffer: 2_048, batchSize: 512, maxInFlight: 2, timeoutMs: 10_000 };

export class SpanExporter {
  readonly #config: OtlpConfig;
  readonly #options: ExporterOptions;
  readonly #limits: typeof exporterDefaults;
  #buffer: SpanRecord[] = [];
  #inFlight = 0;
  /** A flush left spans behind for want of a free request: they go when one frees. */
  #flushPending = false;
  /** Buffer-full drops not yet reported (reported once per flush, not once per span). */
  #unreported = 0;
  readonly #counters: ExporterCounters = { exported: 0, dropped: 0, droppedBufferFull: 0, droppedExportFailed: 0 };

  constructor(config: OtlpConfig, options: ExporterOptions) {
    this.#config = config;
    this.#options = options;
    this.#limits = {
      maxBuffer: options.maxBuffer ?? exporterDefaults.maxBuffer,
      batchSize: options.batchSize ?? exporterDefaults.batchSize,
      maxInFlight: options.maxInFlight ?? exporterDefaults.maxInFlight,
      timeoutMs: options.timeoutMs ?? exporterDefaults.timeoutMs,
    };
  }

  get counters(): Readonly<ExporterCounters> {
    return { ...this.#counters };
  }

  /** Spans waiting to be sent. */
  get buffered(): number {
    return this.#buffer.length;
  }

  add(span: SpanRecord): void {
    if (this.#buffer.length >= this.#limits.maxBuffer) {
      this.#counters.dropped += 1;
      this.#counters.droppedBufferFull += 1;
      this.#unreported += 1;
      return;
    }
    this.#buffer.push(span);
    if (this.#buffer.length >= this.#limits.batchSize) this.#options.keepAlive(this.flush());
  }

  /** Sends what is buffered, a batch per request, as far as `maxInFlight` allows. Never rejects. */
  flush(): Promise<void> {
    if (this.#unreported > 0) {
      const count = this.#unreported;
      this.#unreported = 0;
      this.#report(count, "buffer_full");
    }
    const sends: Promise<void>[] = [];
    while (this.#buffer.length > 0 && this.#inFlight < this.#limits.maxInFlight) {
      sends.push(this.#send(this.#buffer.splice(0, this.#limits.batchSize)));
    }
    this.#flushPending = this.#buffer.length > 0;
    return Promise.all(sends).then(() => undefined);
  }

  async #send(batch: SpanRecord[]): Promise<void> {
    this.#inFlight += 1;
    let failed = true;
    try {
      const json = this.#config.protocol === "http/json";
      const body = json ? encodeOtlpJson(this.#options.identity, batch) : encodeOtlpProtobuf(this.#options.identity, batch);
      const response = await (this.#options.fetch ?? fetch)(this.#config.tracesUrl, {
        method: "POST",
        headers: { ...this.#config.headers, "content-type": json ? "application/json" : "application/x-protobuf" },
        body,
        signal: AbortSignal.timeout(this.#limits.timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      failed = !response.ok;
    } catch {
      // Down, refused, or slower than the timeout: the batch is dropped and counted below.
    } finally {
      this.#inFlight -= 1;
    }
    if (failed) {
      this.#counters.dropped += batch.length;
      this.#counters.droppedExportFailed += batch.length;
      this.#report(batch.length, "export_failed");
    } else this.#counters.exported += batch.length;
    // What a flush left waiting for a free request goes now, and so does a full batch; a partial one waits for the next flush.
    if ((this.#flushPending && this.#buffer.length > 0) || this.#buffer.length >= this.#limits.batchSize) this.#options.keepAlive(this.flush());
  }

  #report(count: number, reason: DropReason): void {
    this.#options.onDropped?.({ count, reason, counters: this.counters });
  }
}
