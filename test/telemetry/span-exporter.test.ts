/**
 * The exporter's bounds: spans wait until a flush or a full batch, a full
 * buffer drops (and counts) rather than grow, at most `maxInFlight`
 * requests are out at once, and a request that fails or never answers drops
 * its batch, counted, without anyone waiting on it. The receiver here reads
 * what it is sent (OTLP JSON) the way a collector would.
 */
import { describe, expect, it } from "vitest";
import { type DropReason, SpanExporter } from "../../src/telemetry/span-exporter";
import type { OtlpConfig } from "../../src/telemetry/otlp-config";
import type { SpanRecord } from "../../src/telemetry/span-record";
import { waitUntil } from "../support/agents";

const config: OtlpConfig = { tracesUrl: "http://collector.test/v1/traces", headers: { "api-key": "k" }, protocol: "http/json" };
const identity = { resource: { "service.name": "switchboard" }, scope: { name: "switchboard", version: "1.41.0" } };

type Received = {
  url: string;
  headers: Headers;
  spans: { name: string; traceId: string; startTimeUnixNano: string; attributes: { key: string; value: Record<string, unknown> }[] }[];
};

/** A collector in the test: parses each request, answers as told (or holds it until released). */
function receiver(answer: (request: Received) => Promise<Response> | Response = () => new Response("{}")) {
  const received: Received[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as { resourceSpans: { scopeSpans: { spans: Received["spans"] }[] }[] };
    const request = {
      url: String(input),
      headers: new Headers(init?.headers),
      spans: body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    };
    received.push(request);
    const signal = init?.signal;
    return Promise.race([
      Promise.resolve(answer(request)),
      new Promise<never>((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
  };
  return { received, fetch: fetch as typeof globalThis.fetch };
}

function span(index: number): SpanRecord {
  return {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: (index + 1).toString(16).padStart(16, "0"),
    name: `execute_tool tool_${index}`,
    kind: "internal",
    startTimeMs: 1_700_000_000_000 + index,
    endTimeMs: 1_700_000_000_001 + index,
    attributes: { "gen_ai.tool.name": `tool_${index}`, "gen_ai.usage.input_tokens": 12 },
    status: { code: "unset" },
  };
}

function exporterWith(options: { maxBuffer?: number; batchSize?: number; maxInFlight?: number; timeoutMs?: number }, fetch: typeof globalThis.fetch) {
  const kept: Promise<unknown>[] = [];
  const drops: { count: number; reason: DropReason }[] = [];
  const exporter = new SpanExporter(config, {
    identity,
    ...options,
    fetch,
    keepAlive: (promise) => kept.push(promise),
    onDropped: ({ count, reason }) => drops.push({ count, reason }),
  });
  return { exporter, kept, drops };
}

describe("SpanExporter", () => {
  it("holds spans until the flush, then sends them in one OTLP JSON request with its headers", async () => {
    const { received, fetch } = receiver();
    const { exporter } = exporterWith({ batchSize: 10 }, fetch);
    for (let index = 0; index < 3; index++) exporter.add(span(index));
    expect(received).toHaveLength(0);
    await exporter.flush();
    expect(received).toHaveLength(1);
    expect(received[0]?.url).toBe(config.tracesUrl);
    expect(received[0]?.headers.get("api-key")).toBe("k");
    expect(received[0]?.headers.get("content-type")).toBe("application/json");
    expect(received[0]?.spans.map((sent) => sent.name)).toEqual(["execute_tool tool_0", "execute_tool tool_1", "execute_tool tool_2"]);
    expect(received[0]?.spans[0]?.startTimeUnixNano).toBe("1700000000000000000");
    expect(received[0]?.spans[0]?.attributes).toContainEqual({ key: "gen_ai.usage.input_tokens", value: { intValue: "12" } });
    expect(exporter.counters).toEqual({ exported: 3, dropped: 0, droppedBufferFull: 0, droppedExportFailed: 0 });
  });

  it("sends a batch as soon as the buffer holds one, without a flush", async () => {
    const { received, fetch } = receiver();
    const { exporter, kept } = exporterWith({ batchSize: 4 }, fetch);
    for (let index = 0; index < 9; index++) exporter.add(span(index));
    await Promise.all(kept);
    expect(received.map((request) => request.spans.length)).toEqual([4, 4]);
    expect(exporter.buffered).toBe(1);
  });

  it("drops and counts what finds the buffer full, reported once at the next flush", async () => {
    const { received, fetch } = receiver();
    const { exporter, drops } = exporterWith({ maxBuffer: 5, batchSize: 100 }, fetch);
    for (let index = 0; index < 8; index++) exporter.add(span(index));
    expect(exporter.buffered).toBe(5);
    expect(exporter.counters.droppedBufferFull).toBe(3);
    expect(drops).toEqual([]);
    await exporter.flush();
    expect(drops).toEqual([{ count: 3, reason: "buffer_full" }]);
    expect(received[0]?.spans).toHaveLength(5);
  });

  it("keeps at most maxInFlight requests out; the rest waits in the buffer", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { received, fetch } = receiver(async () => {
      await held;
      return new Response("{}");
    });
    const { exporter, kept } = exporterWith({ batchSize: 2, maxInFlight: 1 }, fetch);
    for (let index = 0; index < 6; index++) exporter.add(span(index));
    const flushed = exporter.flush();
    expect(received).toHaveLength(1);
    expect(exporter.buffered).toBe(4);
    release();
    await flushed;
    await waitUntil(async () => {
      await Promise.all(kept);
      return received.length === 3;
    });
    expect(exporter.counters.exported).toBe(6);
  });

  it("drops and counts a batch the endpoint refuses or cannot take", async () => {
    const { fetch } = receiver(() => new Response("down", { status: 503 }));
    const { exporter, drops } = exporterWith({}, fetch);
    exporter.add(span(0));
    exporter.add(span(1));
    await exporter.flush();
    expect(drops).toEqual([{ count: 2, reason: "export_failed" }]);
    expect(exporter.counters).toEqual({ exported: 0, dropped: 2, droppedBufferFull: 0, droppedExportFailed: 2 });

    const unreachable = exporterWith({}, () => Promise.reject(new TypeError("connection refused")));
    unreachable.exporter.add(span(0));
    await unreachable.exporter.flush();
    expect(unreachable.drops).toEqual([{ count: 1, reason: "export_failed" }]);
  });

  it("gives up on an endpoint that never answers, after its timeout", async () => {
    const { received, fetch } = receiver(() => new Promise<Response>(() => undefined));
    const { exporter, drops } = exporterWith({ timeoutMs: 50 }, fetch);
    exporter.add(span(0));
    await exporter.flush();
    expect(received).toHaveLength(1);
    expect(drops).toEqual([{ count: 1, reason: "export_failed" }]);
  });
});
