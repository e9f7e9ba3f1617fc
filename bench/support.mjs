/**
 * Helpers shared by the agent-cycle and tool-roundtrip benchmarks (not a
 * benchmark module itself): event clients on a WebSocket or an SSE response
 * that let a caller register "wait for the frame that matches" before it acts,
 * a bounded-concurrency map, and percentiles.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/**
 * The frames of one stream, and waits on them. `expect(predicate, timeoutMs)`
 * registers a waiter at once (register before the request that causes the
 * frame) and resolves `{frame, at}` (at = performance.now() when the frame was
 * parsed) or `undefined` on timeout. A frame goes to every waiter it matches.
 * Frames with a `seq` are checked for gaps, duplicates and reordering.
 */
class FrameWaiters {
  waiters = new Set();
  frames = 0;
  malformed = 0;
  disconnected = false;
  seq = { last: undefined, gaps: 0, duplicates: 0, reordered: 0 };
  /** Every parsed frame, when the stream was opened with `{keep: true}`. */
  kept = undefined;
  lastFrameAt = 0;

  observers = new Set();

  /** Calls `callback(frame)` for every frame from now on; returns a function that stops it. */
  observe(callback) {
    this.observers.add(callback);
    return () => this.observers.delete(callback);
  }

  expect(predicate, timeoutMs) {
    return new Promise((resolveWait) => {
      const waiter = {
        predicate,
        resolve: (value) => {
          clearTimeout(waiter.timer);
          this.waiters.delete(waiter);
          resolveWait(value);
        },
      };
      waiter.timer = setTimeout(() => waiter.resolve(undefined), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  deliver(text) {
    const at = performance.now();
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      this.malformed += 1;
      return;
    }
    this.frames += 1;
    this.lastFrameAt = at;
    this.kept?.push(frame);
    if (Number.isInteger(frame?.seq)) this.#observe(frame.seq);
    for (const callback of this.observers) callback(frame);
    for (const waiter of [...this.waiters]) {
      let matches = false;
      try {
        matches = waiter.predicate(frame);
      } catch {
        // A predicate that throws does not match.
      }
      if (matches) waiter.resolve({ frame, at });
    }
  }

  #observe(seq) {
    const track = this.seq;
    if (track.last === undefined || seq === track.last + 1) track.last = seq;
    else if (seq > track.last + 1) {
      track.gaps += seq - track.last - 1;
      track.last = seq;
    } else if (seq === track.last) track.duplicates += 1;
    else track.reordered += 1;
  }

  cancelAll() {
    for (const waiter of [...this.waiters]) waiter.resolve(undefined);
  }
}

/** Opens a WebSocket whose text frames are JSON events. */
export async function openEventSocket(url, { openTimeoutMs = 15_000, keep = false } = {}) {
  const waiters = new FrameWaiters();
  if (keep) waiters.kept = [];
  const socket = new WebSocket(url);
  let closing = false;
  try {
    await new Promise((resolveOpen, reject) => {
      const timer = setTimeout(() => reject(new Error(`WebSocket did not open within ${openTimeoutMs}ms`)), openTimeoutMs);
      socket.addEventListener("open", () => {
        clearTimeout(timer);
        resolveOpen();
      });
      socket.addEventListener("error", () => {
        clearTimeout(timer);
        reject(new Error("WebSocket failed to open"));
      });
    });
  } catch (error) {
    try {
      socket.close();
    } catch {
      // never opened
    }
    throw new Error(`${error.message}: ${url.replace(/token=[^&]+/, "token=…")} (upgrade answered ${await explainUpgrade(url)})`);
  }
  socket.addEventListener("message", (event) => waiters.deliver(typeof event.data === "string" ? event.data : Buffer.from(event.data).toString("utf8")));
  socket.addEventListener("close", () => {
    if (!closing) waiters.disconnected = true;
  });
  return {
    stream: waiters,
    expect: (predicate, timeoutMs) => waiters.expect(predicate, timeoutMs),
    /** Sends a text frame to the server. */
    send: (text) => socket.send(text),
    async close() {
      closing = true;
      waiters.cancelAll();
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolveClose) => socket.addEventListener("close", () => resolveClose()));
      try {
        socket.close(1000, "bench done");
      } catch {
        return;
      }
      await Promise.race([closed, new Promise((resolveSleep) => setTimeout(resolveSleep, 3_000))]);
    },
  };
}

/** Explains a refused WebSocket upgrade by asking over HTTP (the WebSocket API hides the status). */
export async function explainUpgrade(url) {
  try {
    const response = await fetch(url.replace(/^ws/, "http"), {
      headers: { upgrade: "websocket", connection: "upgrade", "sec-websocket-version": "13", "sec-websocket-key": randomBytes(16).toString("base64") },
      signal: AbortSignal.timeout(5_000),
    });
    return `${response.status} ${(await response.text()).slice(0, 300)}`;
  } catch (error) {
    return String(error?.message ?? error);
  }
}

/**
 * Opens an SSE stream with `fetch` (so it can carry headers, e.g. the secret
 * key, which Node's WebSocket cannot) and parses `data:` lines as JSON events.
 * Its own few lines of parsing, not the SDK's `SseParser`: the bench is plain
 * JavaScript run by Node, which cannot load the SDK's TypeScript, and the
 * built SDK does not export its parser. The gateway's frames need no more.
 */
export async function openEventSource(url, headers, { openTimeoutMs = 15_000, keep = false } = {}) {
  const waiters = new FrameWaiters();
  if (keep) waiters.kept = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`SSE did not answer within ${openTimeoutMs}ms`)), openTimeoutMs);
  let response;
  try {
    response = await fetch(url, { headers: { ...headers, accept: "text/event-stream" }, signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok || !response.body) {
    const body = await response.text().catch(() => "");
    throw new Error(`SSE ${url} → ${response.status} ${body.slice(0, 300)}`);
  }
  let closing = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary;
        while ((boundary = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const data = block
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
            .join("\n");
          if (data) waiters.deliver(data);
        }
      }
    } catch {
      // Aborted by close(), or the server went away.
    }
    if (!closing) waiters.disconnected = true;
  })();
  return {
    stream: waiters,
    expect: (predicate, timeoutMs) => waiters.expect(predicate, timeoutMs),
    async close() {
      closing = true;
      waiters.cancelAll();
      controller.abort();
      await Promise.race([reading, new Promise((resolveSleep) => setTimeout(resolveSleep, 3_000))]);
    },
  };
}

/**
 * Opens a stream with replay from `afterSeq=0` and resolves every frame it
 * replays: collects until no frame arrived for `idleMs` (bounded by `maxMs`).
 */
export async function replayEvents(url, headers, { idleMs = 500, maxMs = 10_000 } = {}) {
  const source = await openEventSource(url, headers, { keep: true });
  const opened = performance.now();
  try {
    for (;;) {
      await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
      const now = performance.now();
      const quietSince = source.stream.lastFrameAt || opened;
      if (now - quietSince >= idleMs || now - opened >= maxMs) break;
    }
    return source.stream.kept;
  } finally {
    await source.close();
  }
}

/** Runs `task(item, index)` over `items` with at most `limit` in flight; resolves the results in order. */
export async function mapLimit(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export function percentile(values, fraction) {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

export const median = (values) => percentile(values, 0.5);

export const ms = (value) => (value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(1));

export function ratio(numerator, denominator) {
  return numerator === undefined || !denominator ? "n/a" : `${(numerator / denominator).toFixed(2)}x`;
}

/** Prints rows of cells right-aligned under a header. */
export function printTable(header, rows) {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => String(row[column]).length)));
  const render = (cells) => cells.map((cell, column) => String(cell).padStart(widths[column])).join("  ");
  console.log(`\n${render(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}`);
  for (const row of rows) console.log(render(row));
}

/** POSTs JSON to a plain URL (the floor) and resolves `{status, body, at}` (at = when the answer was read). */
export async function postJson(url, body, timeoutMs = 15_000) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  const at = performance.now();
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: response.status, body: parsed, at };
}

/** VmRSS of process `pid` in KiB (Linux /proc); undefined where there is none. */
export function residentKiB(pid) {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, all threads) in ms of every process under `pid`
 * (itself included), from /proc/<pid>/stat in clock ticks of 10 ms; undefined
 * where there is no /proc. Under a `wrangler dev`: wrangler, its proxy and
 * the workerd that runs the Worker, its objects and local D1.
 */
export function treeCpuMs(pid) {
  try {
    const childrenOf = new Map();
    const cpuOf = new Map();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // comm may hold spaces and parentheses: the fields after the last ")" are fixed.
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const parent = Number(fields[1]);
        childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), Number(entry)]);
        cpuOf.set(Number(entry), (Number(fields[11]) + Number(fields[12])) * 10);
      } catch {
        // The process ended while we looked.
      }
    }
    if (!cpuOf.has(pid)) return undefined;
    let total = 0;
    for (const queue = [pid]; queue.length > 0; ) {
      const next = queue.shift();
      total += cpuOf.get(next) ?? 0;
      queue.push(...(childrenOf.get(next) ?? []));
    }
    return total;
  } catch {
    return undefined;
  }
}
