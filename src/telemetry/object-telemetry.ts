/**
 * The tracing of one Durable Object: a tracer whose spans wait in the
 * object's exporter, flushed when a cycle ends. Off (no endpoint, or a
 * setting `GET /health` names as a problem) it is a tracer that makes
 * nothing and an exporter that does not exist.
 */
import { instrumentationScope } from "./gen-ai-spans";
import { readOtlpConfig } from "./otlp-config";
import { type DropReason, type ExporterCounters, SpanExporter } from "./span-exporter";
import { Tracer } from "./tracer";

export type ObjectTelemetry = {
  tracer: Tracer;
  /** Sends what the cycle left in the buffer, without waiting for it. */
  flush(): void;
  counters(): ExporterCounters | undefined;
};

export function objectTelemetry(
  env: Record<string, unknown>,
  options: {
    /** `ctx.waitUntil`: the export outlives the cycle that asked for it. */
    keepAlive(promise: Promise<unknown>): void;
    onDropped(drop: { count: number; reason: DropReason; counters: ExporterCounters }): void;
    fetch?: typeof fetch;
  },
): ObjectTelemetry {
  const { config } = readOtlpConfig(env);
  if (!config) return { tracer: new Tracer(undefined), flush: () => undefined, counters: () => undefined };
  const version = typeof env.SWITCHBOARD_VERSION === "string" ? env.SWITCHBOARD_VERSION : "unknown";
  const exporter = new SpanExporter(config, {
    identity: { resource: { "service.name": "switchboard", "service.version": version }, scope: instrumentationScope },
    keepAlive: options.keepAlive,
    onDropped: options.onDropped,
    ...(options.fetch && { fetch: options.fetch }),
  });
  return {
    tracer: new Tracer(exporter),
    flush: () => options.keepAlive(exporter.flush()),
    counters: () => exporter.counters,
  };
}
