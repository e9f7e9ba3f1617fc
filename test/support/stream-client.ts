/** A test client for the WebSocket and SSE stream routes that collects events and waits for them. */
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
      const waiter = { predicate, resolve: (event: ReceivedEvent) => { clearTimeout(timer); resolve(event); } };
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
  return { socket, collector, close: () => socket.close(1000, "done") };
}

export async function openSse(path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await call(path, { headers: { ...headers, accept: "text/event-stream" } });
  if (!response.body || response.status !== 200) throw new Error(`no SSE: ${response.status} ${await response.text()}`);
  const collector = new EventCollector();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let boundary = buffer.indexOf("\n\n");
        while (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const data = block
            .split("\n")
            .filter((line) => line.startsWith("data: "))
            .map((line) => line.slice(6))
            .join("\n");
          if (data) collector.push(JSON.parse(data));
          boundary = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // cancelled
    }
    collector.closed ??= { code: 0, reason: "ended" };
  })();
  return { response, collector, close: () => { controller.abort(); void reader.cancel().catch(() => undefined); } };
}
