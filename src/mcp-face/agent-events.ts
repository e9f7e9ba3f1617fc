/**
 * An agent's own event stream, followed from inside the Worker: the stream
 * route's WebSocket, opened on the agent object with the secret audience
 * (the Worker reads it for its own use; what a caller is shown is chosen by
 * `ask-agent.ts`). Opened before the question is delivered, so the run it
 * starts cannot be missed. Events are read one at a time, each waited for
 * until a deadline or an abort.
 */
import { z } from "zod";
import { agentStub } from "../agents/agent-stub";
import type { AppEnv } from "../env";
import { parseJsonSafely } from "../json";
import { subscriberHeaders } from "../streams/open-stream";

const AgentStreamEvent = z.object({ type: z.string(), data: z.record(z.string(), z.unknown()) });
export type AgentStreamEvent = z.infer<typeof AgentStreamEvent>;

export type NextEvent = { kind: "event"; event: AgentStreamEvent } | { kind: "deadline" } | { kind: "aborted" } | { kind: "closed" };

export class AgentEvents {
  #queue: AgentStreamEvent[] = [];
  #wake: (() => void) | undefined;
  #closed = false;

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener("message", (message) => {
      if (typeof message.data !== "string") return;
      const parsed = parseJsonSafely(message.data);
      const event = parsed.ok ? AgentStreamEvent.safeParse(parsed.value) : undefined;
      if (!event?.success) return;
      this.#queue.push(event.data);
      this.#wake?.();
    });
    socket.addEventListener("close", () => {
      this.#closed = true;
      this.#wake?.();
    });
  }

  static async open(env: AppEnv, agentId: string): Promise<AgentEvents> {
    const request = new Request("https://agent.internal/stream", { headers: { upgrade: "websocket", [subscriberHeaders.audience]: "secret" } });
    const response = await agentStub(env, agentId).fetch(request);
    if (!response.webSocket) throw new Error(`the agent's stream did not open (${response.status})`);
    response.webSocket.accept();
    return new AgentEvents(response.webSocket);
  }

  /** The next event, or why none came: the deadline (ms since the epoch) passed, `signal` aborted, or the stream closed. */
  async next(deadline: number, signal: AbortSignal): Promise<NextEvent> {
    for (;;) {
      const event = this.#queue.shift();
      if (event) return { kind: "event", event };
      if (signal.aborted) return { kind: "aborted" };
      if (this.#closed) return { kind: "closed" };
      const left = deadline - Date.now();
      if (left <= 0) return { kind: "deadline" };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        signal.addEventListener("abort", done, { once: true });
        this.#wake = done;
        function done() {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
      });
      this.#wake = undefined;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.socket.close(1000, "done");
    } catch {
      // already closing
    }
  }
}
