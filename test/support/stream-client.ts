/**
 * A test client for the WebSocket and SSE stream routes that collects events
 * and waits for them. Each stream it opens is closed when the test ends, pass
 * or fail (`onTestFinished`), so a failed assertion never leaves one open
 * for the next test; `close()` is there for a test that needs it shut sooner.
 */
import { onTestFinished } from "vitest";
import { SseParser } from "../../client/src/sse-parser";
import { call } from "./api";

export type ReceivedEvent = { seq: number; type: string; spaceId?: string; agentId?: string; at: string; data: Record<string, unknown> };

export class EventCollector {
  readonly events: ReceivedEvent[] = [];
  readonly frames: unknown[] = [];
  #waiters: { predicate: (event: ReceivedEvent) => boolean; resolve: (event: ReceivedEvent) => void }[] = [];
  closed: { code: number; reason: string } | undefined;

  push(frame: unknown): void {
    this.frames.push(frame);
    if (typeof frame !== "object" || frame === null || !("seq" in frame)) return;
    const event = frame as ReceivedEvent;
    this.events.push(event);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.predicate(event)) return true;
      waiter.resolve(event);
      return false;
    });
  }

  waitFor(predicate: (event: ReceivedEvent) => boolean, timeoutMs = 5_000): Promise<ReceivedEvent> {
    const found = this.events.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (event: ReceivedEvent) => {
          clearTimeout(timer);
          resolve(event);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((candidate) => candidate !== waiter);
        reject(new Error(`timed out waiting for an event; got: ${this.events.map((event) => `${event.seq}:${event.type}`).join(", ")}`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  waitForType(type: string, timeoutMs?: number): Promise<ReceivedEvent> {
    return this.waitFor((event) => event.type === type, timeoutMs);
  }

  ofType(type: string): ReceivedEvent[] {
    return this.events.filter((event) => event.type === type);
  }
}

export async function openWebSocket(path: string, headers: Record<string, string> = {}) {
  const response = await call(path, { headers: { ...headers, upgrade: "websocket" } });
  const socket = response.webSocket;
  if (!socket) throw new Error(`no WebSocket: ${response.status} ${await response.text()}`);
  socket.accept();
  const collector = new EventCollector();
  socket.addEventListener("message", (message) => {
    collector.push(JSON.parse(message.data as string));
  });
  socket.addEventListener("close", (event) => {
    collector.closed = { code: event.code, reason: event.reason };
  });
  const close = once(() => {
    try {
      socket.close(1000, "done");
    } catch {
      // Already closed by the other side.
    }
  });
  onTestFinished(close);
  return { socket, collector, close };
}

export async function openSse(path: string, headers: Record<string, string> = {}) {
  const response = await call(path, { headers: { ...headers, accept: "text/event-stream" } });
  if (!response.body || response.status !== 200) throw new Error(`no SSE: ${response.status} ${await response.text()}`);
  const collector = new EventCollector();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  // The SDK's parser (the one the gateway's clients use): comments skipped, `data:` lines joined.
  const parser = new SseParser((frame) => collector.push(JSON.parse(frame.data)));
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch {
      // cancelled
    }
    collector.closed ??= { code: 0, reason: "ended" };
  })();
  const close = once(() => void reader.cancel().catch(() => undefined));
  onTestFinished(close);
  return { response, collector, close };
}

/** `close` that does its work the first time only (a test may close early; the end of the test closes again). */
function once(close: () => void): () => void {
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    close();
  };
}
