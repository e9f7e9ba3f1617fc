/**
 * A subscription to a space or agent stream that survives disconnects: it
 * reconnects with backoff and resumes after the last `seq` it delivered, so
 * the caller sees every event once, in order. Over a WebSocket (browsers,
 * Node 22+, or any `WebSocket` class you pass) or over SSE read with fetch
 * (the fallback where no WebSocket is global, and the only way to send the
 * secret key, which may not go in a URL).
 */
import { backoffDelay, sleep, type BackoffOptions } from "./backoff.js";
import { connectSse } from "./sse-connection.js";
import { FinalStreamError } from "./stream-connection.js";
import { SwitchboardError } from "./switchboard-error.js";
import { connectWebSocket, type WebSocketConstructor } from "./websocket-connection.js";

export type { WebSocketConstructor, WebSocketLike } from "./websocket-connection.js";

export type StreamStatus = "connecting" | "open" | "reconnecting" | "closed";

export type StreamTransport = "auto" | "websocket" | "sse";

export type SubscribeOptions = {
  /** Replay the events after this seq first (`0`: everything still kept). Without it the stream starts live. */
  afterSeq?: number;
  transport?: StreamTransport;
  signal?: AbortSignal;
  reconnect?: BackoffOptions & { maxAttempts?: number };
  /** A connection that shows nothing (no event, no heartbeat) for this long is replaced. Default 60 s. */
  idleTimeoutMs?: number;
};

export type StreamConnection = {
  fetch: typeof fetch;
  WebSocket?: WebSocketConstructor;
  /** `http(s)://host` of the gateway. */
  baseUrl: string;
  /** The stream route, e.g. `/api/spaces/spc_…/stream`. */
  path: string;
  /** Headers for SSE (the secret key, or the public key and JWT). */
  headers: () => Promise<Record<string, string>>;
  /** Query credentials for a WebSocket, or undefined when only headers will do (the secret key). */
  query: () => Promise<Record<string, string> | undefined>;
  /** After a failed WebSocket handshake: asks over HTTP why, so auth problems are reported, not retried. */
  probe: () => Promise<SwitchboardError | undefined>;
};

type Listener<T> = (value: T) => void;
type Listeners<E> = {
  event: Listener<E>[];
  status: Listener<{ status: StreamStatus; attempt: number; delayMs?: number; error?: SwitchboardError }>[];
  gap: Listener<{ afterSeq: number; firstSeq: number }>[];
  error: Listener<SwitchboardError>[];
};

export class EventSubscription<E extends { seq: number; type: string }> implements AsyncIterable<E> {
  #lastSeq: number | undefined;
  #status: StreamStatus = "connecting";
  #listeners: Listeners<E> = { event: [], status: [], gap: [], error: [] };
  #stop = new AbortController();
  #queue: E[] = [];
  #wakeIterator: (() => void) | undefined;
  #error: SwitchboardError | undefined;
  /** Settles when the subscription ends: resolves on `close()`, rejects with a final error. */
  readonly done: Promise<void>;

  constructor(
    private readonly connection: StreamConnection,
    private readonly options: SubscribeOptions = {},
  ) {
    this.#lastSeq = options.afterSeq;
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
    this.done = this.#run();
    this.done.catch(() => undefined);
  }

  /** The seq of the last event delivered (or the `afterSeq` it started from). */
  get lastSeq(): number | undefined {
    return this.#lastSeq;
  }

  get status(): StreamStatus {
    return this.#status;
  }

  on(type: "event", listener: Listener<E>): () => void;
  on(type: "status", listener: Listeners<E>["status"][number]): () => void;
  on(type: "gap", listener: Listeners<E>["gap"][number]): () => void;
  on(type: "error", listener: Listener<SwitchboardError>): () => void;
  on(type: keyof Listeners<E>, listener: Listener<never>): () => void {
    const list = this.#listeners[type] as Listener<never>[];
    list.push(listener);
    return () => {
      const index = list.indexOf(listener);
      if (index !== -1) list.splice(index, 1);
    };
  }

  close(): void {
    if (this.#status === "closed") return;
    this.#stop.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<E, void, undefined> {
    const take = this.on("event", (event) => {
      this.#queue.push(event);
      this.#wakeIterator?.();
    });
    try {
      for (;;) {
        const next = this.#queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.#status === "closed") {
          if (this.#error) throw this.#error;
          return;
        }
        await new Promise<void>((resolve) => (this.#wakeIterator = resolve));
        this.#wakeIterator = undefined;
      }
    } finally {
      take();
    }
  }

  #emit<K extends keyof Listeners<E>>(type: K, value: Parameters<Listeners<E>[K][number]>[0]): void {
    for (const listener of [...this.#listeners[type]] as Listener<typeof value>[]) {
      try {
        listener(value);
      } catch (error) {
        // A listener's bug must not break the stream; surface it without stopping.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  #setStatus(status: StreamStatus, extra: { attempt?: number; delayMs?: number; error?: SwitchboardError } = {}): void {
    this.#status = status;
    this.#emit("status", { status, attempt: extra.attempt ?? 0, delayMs: extra.delayMs, error: extra.error });
    if (status === "closed") this.#wakeIterator?.();
  }

  /** Delivers an event once: older or repeated seqs are dropped; a jump is reported as a gap first. */
  #deliver(frame: unknown): void {
    if (typeof frame !== "object" || frame === null || typeof (frame as { seq?: unknown }).seq !== "number") return;
    const event = frame as E;
    if (this.#lastSeq !== undefined && event.seq <= this.#lastSeq) return;
    if (this.#lastSeq !== undefined && event.seq > this.#lastSeq + 1) this.#emit("gap", { afterSeq: this.#lastSeq, firstSeq: event.seq });
    this.#lastSeq = event.seq;
    this.#emit("event", event);
  }

  async #run(): Promise<void> {
    const { maxAttempts = Number.POSITIVE_INFINITY, ...backoff } = this.options.reconnect ?? {};
    let attempt = 0;
    try {
      while (!this.#stop.signal.aborted) {
        let opened = false;
        try {
          await this.#connectOnce(() => {
            opened = true;
            attempt = 0;
            this.#setStatus("open");
          });
        } catch (error) {
          if (error instanceof FinalStreamError) throw error.error;
          if (this.#stop.signal.aborted) break;
          const reason = error instanceof SwitchboardError ? error : SwitchboardError.network(error, `stream ${this.connection.path}`);
          if (!opened) attempt += 1;
          if (attempt >= maxAttempts) throw reason;
          const delayMs = backoffDelay(attempt, backoff);
          this.#setStatus("reconnecting", { attempt, delayMs, error: reason });
          await sleep(delayMs, this.#stop.signal);
          continue;
        }
        if (this.#stop.signal.aborted) break;
        // The server ended a healthy connection: come back at once, resuming after lastSeq.
        this.#setStatus("reconnecting", { attempt: 0, delayMs: 0 });
      }
    } catch (error) {
      this.#error = error instanceof SwitchboardError ? error : SwitchboardError.network(error);
      this.#emit("error", this.#error);
      this.#setStatus("closed", { error: this.#error });
      throw this.#error;
    }
    this.#setStatus("closed");
  }

  #useWebSocket(query: Record<string, string> | undefined): boolean {
    const transport = this.options.transport ?? "auto";
    if (transport === "sse") return false;
    if (transport === "websocket") {
      if (!this.connection.WebSocket)
        throw new FinalStreamError(
          new SwitchboardError({ status: 0, code: "no_websocket", message: 'No WebSocket class: pass one (e.g. from the ws package) or use transport "sse"' }),
        );
      if (!query)
        throw new FinalStreamError(
          new SwitchboardError({ status: 0, code: "no_websocket", message: 'The secret key cannot go in a WebSocket URL: use transport "sse" (the default for the secret key)' }),
        );
      return true;
    }
    return query !== undefined && this.connection.WebSocket !== undefined;
  }

  /** One connection, from opening to its end. Resolves when the server ends it; throws to retry; throws FinalStreamError to stop. */
  async #connectOnce(onOpen: () => void): Promise<void> {
    const query = await this.connection.query();
    // close() may have come while the credentials were read (a token function is async): then nothing is to be opened.
    if (this.#stop.signal.aborted) return;
    const params = new URLSearchParams();
    if (this.#lastSeq !== undefined) params.set("afterSeq", String(this.#lastSeq));
    const attempt = {
      signal: this.#stop.signal,
      idleTimeoutMs: this.options.idleTimeoutMs ?? 60_000,
      onOpen,
      onFrame: (frame: unknown) => this.#deliver(frame),
    };
    if (this.#useWebSocket(query)) {
      for (const [name, value] of Object.entries(query ?? {})) params.set(name, value);
      const url = `${this.connection.baseUrl.replace(/^http/, "ws")}${this.connection.path}?${params}`;
      return connectWebSocket({ ...attempt, url, WebSocket: this.connection.WebSocket as WebSocketConstructor, probe: this.connection.probe });
    }
    const url = `${this.connection.baseUrl}${this.connection.path}${params.size > 0 ? `?${params}` : ""}`;
    const headers = await this.connection.headers();
    if (this.#stop.signal.aborted) return;
    return connectSse({ ...attempt, url, fetch: this.connection.fetch, headers, what: `GET ${this.connection.path}` });
  }
}
