import { describe, expect, it } from "vitest";
import { executeGatewayTool, runGatewayTool } from "../../../src/tools/gateway/execute-gateway-tool";
import type { GatewayToolOptions } from "../../../src/tools/gateway/execute-gateway-tool";

type SeenRequest = { url: string; init: RequestInit | undefined };

/** A fake `fetch` that records what it was asked and answers with `answer`. */
function fakeFetch(answer: (init: RequestInit | undefined) => Response | Promise<Response>) {
  const seen: SeenRequest[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    seen.push({ url: String(input), init });
    return answer(init);
  };
  return { fetcher, seen };
}

function json(value: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(value), { ...init, headers: { "content-type": "application/json", ...init.headers } });
}

/** A lazily generated body: counts how many chunks were pulled and whether it was cancelled. */
function countingStream(chunkBytes: number, chunkCount: number) {
  let markCancelled: () => void = () => undefined;
  const state = { pulls: 0, cancelled: false, whenCancelled: new Promise<void>((resolve) => (markCancelled = resolve)) };
  const chunk = new Uint8Array(chunkBytes).fill(0x20);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulls === chunkCount) return controller.close();
      state.pulls++;
      controller.enqueue(chunk.slice());
    },
    cancel() {
      state.cancelled = true;
      markCancelled();
    },
  });
  return { stream, state };
}

const execution = {
  url: "https://api.example.com/v1/weather?city={{city}}",
  method: "GET" as const,
  headers: { authorization: "Bearer ${env.WEATHER_KEY}" },
};

function options(overrides: Partial<GatewayToolOptions>): GatewayToolOptions {
  return {
    execution,
    args: { city: "Oslo" },
    env: { WEATHER_KEY: "key_1" },
    timeoutMs: 1000,
    maxResponseBytes: 100_000,
    ...overrides,
  };
}

describe("executeGatewayTool", () => {
  it("sends the built request and returns the parsed JSON answer", async () => {
    const { fetcher, seen } = fakeFetch(() => json({ temperature: 21 }, { headers: { "content-type": "application/json; charset=utf-8" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher }))).toEqual({ temperature: 21 });
    expect(seen).toHaveLength(1);
    expect(seen[0].url).toBe("https://api.example.com/v1/weather?city=Oslo");
    expect(seen[0].init?.method).toBe("GET");
    expect(seen[0].init?.headers).toEqual({ authorization: "Bearer key_1" });
    expect(seen[0].init?.redirect).toBe("manual");
    expect(seen[0].init?.signal).toBeInstanceOf(AbortSignal);
  });

  it("posts the arguments as JSON when no body is configured", async () => {
    const { fetcher, seen } = fakeFetch(() => json({ id: "t_1" }, { status: 201 }));
    const result = await executeGatewayTool(options({ execution: { url: "https://api.example.com/tickets", method: "POST" }, args: { title: "Hi" }, fetch: fetcher }));
    expect(result).toEqual({ id: "t_1" });
    expect(seen[0].init?.body).toBe('{"title":"Hi"}');
    expect(seen[0].init?.headers).toEqual({ "content-type": "application/json" });
  });

  it("gives a config problem back without calling the tool", async () => {
    const { fetcher, seen } = fakeFetch(() => json({}));
    expect(await executeGatewayTool(options({ args: {}, fetch: fetcher }))).toEqual({ error: 'Missing argument "city" for the URL' });
    expect(await executeGatewayTool(options({ env: {}, fetch: fetcher }))).toEqual({
      error: 'Header "authorization" uses the secret "WEATHER_KEY", which is not set',
    });
    expect(seen).toHaveLength(0);
  });

  it("reports an HTTP error with the status and the start of the body", async () => {
    const { fetcher } = fakeFetch(() => new Response(`boom ${"x".repeat(5000)}`, { status: 500 }));
    const result = await executeGatewayTool(options({ fetch: fetcher }));
    expect(result).toEqual({ error: `HTTP 500 from api.example.com: boom ${"x".repeat(495)}`, status: 500 });
  });

  it("reports an HTTP error with an empty body", async () => {
    const { fetcher } = fakeFetch(() => new Response(null, { status: 404 }));
    expect(await executeGatewayTool(options({ fetch: fetcher }))).toEqual({ error: "HTTP 404 from api.example.com", status: 404 });
  });

  it("does not follow redirects, so header secrets stay with the configured host", async () => {
    const { fetcher } = fakeFetch(() => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher }))).toEqual({
      error: "HTTP 302 from api.example.com: redirects are not followed (to https://elsewhere.example/)",
      status: 302,
    });
  });

  it("turns a non-JSON answer into a tool error without reading it", async () => {
    const { stream, state } = countingStream(1024, 100);
    const { fetcher } = fakeFetch(() => new Response(stream, { headers: { "content-type": "text/html; charset=utf-8" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher }))).toEqual({
      error: "Tool returned a non-JSON response (content-type text/html; charset=utf-8)",
    });
    expect(state.pulls).toBeLessThan(5);
  });

  it("parses an answer without a content type if it is JSON, and refuses it otherwise", async () => {
    const encoder = new TextEncoder();
    const good = fakeFetch(() => new Response(encoder.encode('{"ok":true}')));
    expect(await executeGatewayTool(options({ fetch: good.fetcher }))).toEqual({ ok: true });
    const bad = fakeFetch(() => new Response(encoder.encode("<html>")));
    expect(await executeGatewayTool(options({ fetch: bad.fetcher }))).toEqual({ error: "Tool returned a non-JSON response (no content-type)" });
  });

  it("reports invalid JSON declared as JSON", async () => {
    const { fetcher } = fakeFetch(() => new Response("{not json", { headers: { "content-type": "application/json" } }));
    const result = await runGatewayTool(options({ fetch: fetcher }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^Tool returned invalid JSON: /);
  });

  it("answers an empty success with its status", async () => {
    const { fetcher } = fakeFetch(() => new Response(null, { status: 204 }));
    expect(await executeGatewayTool(options({ fetch: fetcher }))).toEqual({ success: true, status: 204 });
  });

  it("times out a request that hangs, aborting it", async () => {
    let aborted = false;
    const { fetcher } = fakeFetch(
      (init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(init.signal?.reason);
          });
        }),
    );
    const started = Date.now();
    expect(await executeGatewayTool(options({ fetch: fetcher, timeoutMs: 50 }))).toEqual({ error: "Tool request timed out after 50ms" });
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("times out even when the fetch ignores the abort signal", async () => {
    const { fetcher } = fakeFetch(() => new Promise<Response>(() => undefined));
    expect(await executeGatewayTool(options({ fetch: fetcher, timeoutMs: 50 }))).toEqual({ error: "Tool request timed out after 50ms" });
  });

  it("times out a body that stops arriving", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"partial":'));
      },
    });
    const { fetcher } = fakeFetch(() => new Response(stream, { headers: { "content-type": "application/json" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher, timeoutMs: 50 }))).toEqual({ error: "Tool request timed out after 50ms" });
  });

  it("stops when the outer signal aborts", async () => {
    const { fetcher } = fakeFetch((init) => new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason))));
    const outer = new AbortController();
    const pending = executeGatewayTool(options({ fetch: fetcher, signal: outer.signal, timeoutMs: 10_000 }));
    outer.abort();
    expect(await pending).toEqual({ error: "Tool request was cancelled" });

    const calls = fakeFetch(() => json({}));
    expect(await executeGatewayTool(options({ fetch: calls.fetcher, signal: AbortSignal.abort() }))).toEqual({ error: "Tool request was cancelled" });
    expect(calls.seen).toHaveLength(0);
  });

  it("cancels a 10 MB streamed answer as soon as it passes the cap", async () => {
    const { stream, state } = countingStream(64 * 1024, 160);
    const { fetcher } = fakeFetch(() => new Response(stream, { headers: { "content-type": "application/json" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher, maxResponseBytes: 100_000 }))).toEqual({ error: "Tool response exceeded 100000 bytes" });
    expect(state.pulls).toBeLessThan(10);
    // The cancel reaches the stream's source asynchronously: wait for it (with a deadline), not for a fixed time.
    await Promise.race([state.whenCancelled, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    expect(state.cancelled).toBe(true);
  });

  it("counts bytes even when the content-length lies", async () => {
    const { stream, state } = countingStream(64 * 1024, 160);
    const { fetcher } = fakeFetch(() => new Response(stream, { headers: { "content-type": "application/json", "content-length": "10" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher, maxResponseBytes: 100_000 }))).toEqual({ error: "Tool response exceeded 100000 bytes" });
    expect(state.pulls).toBeLessThan(10);
  });

  it("refuses an answer whose content-length is already over the cap, without reading it", async () => {
    const { stream, state } = countingStream(1024, 10);
    const { fetcher } = fakeFetch(() => new Response(stream, { headers: { "content-type": "application/json", "content-length": "50000000" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher, maxResponseBytes: 100_000 }))).toEqual({ error: "Tool response exceeded 100000 bytes" });
    expect(state.pulls).toBeLessThan(3);
  });

  it("lets the tool's own maxResponseBytes override the agent limit", async () => {
    const body = JSON.stringify({ text: "y".repeat(2000) });
    const { fetcher } = fakeFetch(() => new Response(body, { headers: { "content-type": "application/json" } }));
    expect(await executeGatewayTool(options({ fetch: fetcher, execution: { ...execution, maxResponseBytes: 1000 } }))).toEqual({
      error: "Tool response exceeded 1000 bytes",
    });
    expect(await executeGatewayTool(options({ fetch: fetcher, maxResponseBytes: 1000, execution: { ...execution, maxResponseBytes: 5000 } }))).toEqual({
      text: "y".repeat(2000),
    });
  });

  it("turns a network failure into a tool error, even a synchronous throw", async () => {
    const failing: typeof fetch = async () => {
      throw new TypeError("Network connection lost.");
    };
    expect(await executeGatewayTool(options({ fetch: failing }))).toEqual({ error: "Tool request to api.example.com failed: Network connection lost." });
    const throwing: typeof fetch = () => {
      throw new Error("sync");
    };
    expect(await executeGatewayTool(options({ fetch: throwing }))).toEqual({ error: "Tool request to api.example.com failed: sync" });
  });

  it("returns a discriminated result from runGatewayTool", async () => {
    const { fetcher } = fakeFetch(() => json({ a: 1 }));
    expect(await runGatewayTool(options({ fetch: fetcher }))).toEqual({ ok: true, value: { a: 1 } });
    const failing = fakeFetch(() => new Response("nope", { status: 503 }));
    expect(await runGatewayTool(options({ fetch: failing.fetcher }))).toEqual({ ok: false, error: "HTTP 503 from api.example.com: nope", status: 503, kind: "upstream" });
  });

  it("turns an answer nested deeper than 64 levels into a tool error (up to thousands of levels), and accepts 64", async () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    for (const depth of [65, 2_500, 3_000, 40_000]) {
      const { fetcher } = fakeFetch(() => new Response(nested(depth), { headers: { "content-type": "application/json" } }));
      expect(await executeGatewayTool(options({ fetch: fetcher }))).toEqual({
        error: "Tool response refused: JSON nested deeper than 64 levels (objects and arrays) is not accepted",
      });
    }
    const { fetcher } = fakeFetch(() => new Response(`{"a":${nested(63)}}`, { headers: { "content-type": "application/json" } }));
    const answer = await runGatewayTool(options({ fetch: fetcher }));
    expect(answer.ok).toBe(true);
  });

  it("checks the URL as it will be sent by the deployment's URL policy", async () => {
    const { fetcher, seen } = fakeFetch(() => json({ a: 1 }));
    const local = { ...execution, url: "http://127.0.0.1:8080/v1/weather?city={{city}}" };
    expect(await executeGatewayTool(options({ fetch: fetcher, execution: local, env: { WEATHER_KEY: "key_1", ALLOW_PRIVATE_URLS: "false" } }))).toEqual({
      error: 'The tool\'s URL cannot be called: The host "127.0.0.1" is loopback, private or link-local, which this deployment does not call (ALLOW_PRIVATE_URLS = "false")',
    });
    expect(seen).toHaveLength(0);
    expect(await executeGatewayTool(options({ fetch: fetcher, execution: local }))).toEqual({ a: 1 });
  });
});
