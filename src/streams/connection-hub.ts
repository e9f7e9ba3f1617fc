/**
 * The live connections of one Durable Object: hibernatable WebSockets
 * (`ctx.acceptWebSocket`, tagged by audience and entity, the subscriber in the
 * attachment) and SSE streams (in memory; an open SSE response keeps the
 * object alive). Replay and registration happen in one synchronous turn, so
 * the seam between replayed and live events has no gap and no duplicate.
 *
 * A connection opened with a JWT closes when the token expires: WebSockets
 * with close code 4001, SSE with an `event: error` frame, then the end. A
 * timer does it while the object is awake and the expiry is near; after
 * hibernation, every send and every client frame checks the attachment's
 * expiry first, so an expired connection never gets another event.
 */
import { errorEnvelope } from "../errors";
import { byteLength, parseJsonSafely } from "../json";
import type { StreamLog } from "./event-log";
import { openStream } from "./open-stream";
import { isExpired, nextExpiryCheckAt, Subscriber, tokenExpiredCloseCode } from "./subscriber";

export type { Audience } from "./subscriber";
export type { Subscriber } from "./subscriber";

type SseClient = Subscriber & { writer: WritableStreamDefaultWriter<Uint8Array> };

const encoder = new TextEncoder();
const maxClientFrameBytes = 64 * 1024;
const sseHeartbeatMs = 20_000;
/** Expiries further off than this get no timer (it would keep the object from hibernating). */
const expiryTimerHorizonMs = 60_000;
const tokenExpired = { code: "token_expired", message: "The token this stream was opened with has expired; reconnect with a fresh one" } as const;

export const sseHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

function sseFrame(seq: number, frame: string): Uint8Array {
  return encoder.encode(`id: ${seq}\ndata: ${frame}\n\n`);
}

export class ConnectionHub {
  #sseClients = new Set<SseClient>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #expiryTimer: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;
  /** Attachments already read since the object woke. */
  #subscribers = new WeakMap<WebSocket, Subscriber | null>();

  constructor(private readonly ctx: DurableObjectState) {
    // Clients may send the literal "ping" to keep idle sockets alive; the
    // runtime answers without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /** Accepts a WebSocket, sends it the replay, and adds it to the live set. */
  acceptWebSocket(subscriber: Subscriber, replay: { frame: string }[]): Response {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    const tags: string[] = [subscriber.audience];
    if (subscriber.entityId) tags.push(`entity:${subscriber.entityId}`);
    this.ctx.acceptWebSocket(server, tags);
    server.serializeAttachment(subscriber);
    this.#subscribers.set(server, subscriber);
    for (const { frame } of replay) server.send(frame);
    this.#scheduleExpiryCheck();
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Opens an SSE stream, writes the replay, and adds it to the live set. */
  openSse(subscriber: Subscriber, replay: { seq: number; frame: string }[]): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const client: SseClient = { ...subscriber, writer };
    void writer.write(encoder.encode(": connected\n\n")).catch(() => this.#dropSse(client));
    for (const { seq, frame } of replay) void writer.write(sseFrame(seq, frame)).catch(() => this.#dropSse(client));
    this.#sseClients.add(client);
    this.#startHeartbeat();
    this.#scheduleExpiryCheck();
    return new Response(readable, { headers: sseHeaders });
  }

  /** A Durable Object's `fetch` for its stream route: never throws. */
  serve(request: Request, log: StreamLog): Response {
    try {
      return openStream(request, log, this);
    } catch (error) {
      return Response.json(errorEnvelope("stream_failed", (error as Error).message), { status: 500 });
    }
  }

  /** A Durable Object's `webSocketClose`: complete the close handshake. */
  handleClose(socket: WebSocket, code: number, reason: string): void {
    try {
      socket.close(code, reason);
    } catch {
      // already closed
    }
  }

  /** Sends one event to every live connection, in the form its audience may see. */
  broadcast(seq: number, frame: string, publicFrame: string): void {
    const now = Date.now();
    const open: Subscriber[] = [];
    for (const socket of this.ctx.getWebSockets()) {
      const subscriber = this.#subscriberOf(socket);
      if (subscriber === undefined || isExpired(subscriber, now)) {
        this.#closeExpiredSocket(socket);
        continue;
      }
      this.#send(socket, subscriber.audience === "secret" ? frame : publicFrame);
      open.push(subscriber);
    }
    if (this.#sseClients.size > 0) {
      const full = sseFrame(seq, frame);
      const redacted = publicFrame === frame ? full : sseFrame(seq, publicFrame);
      for (const client of this.#sseClients) {
        if (isExpired(client, now)) this.#endExpiredSse(client);
        else client.writer.write(client.audience === "secret" ? full : redacted).catch(() => this.#dropSse(client));
      }
    }
    this.#scheduleExpiryCheck(open);
  }

  /** Closes every connection of one entity (it was removed from the space). */
  closeEntity(entityId: string, reason: string): void {
    for (const socket of this.ctx.getWebSockets(`entity:${entityId}`)) {
      try {
        socket.close(4003, reason);
      } catch {
        // already closing
      }
    }
    for (const client of this.#sseClients) {
      if (client.entityId === entityId) this.#dropSse(client);
    }
  }

  /** Closes every connection (the object's subject was deleted). */
  closeAll(reason: string): void {
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.close(4004, reason);
      } catch {
        // already closing
      }
    }
    for (const client of this.#sseClients) this.#dropSse(client);
  }

  /**
   * Client frames: `{"type":"ping"}` is answered with `{"type":"pong"}`;
   * anything else gets an error frame in the error envelope and the
   * connection stays open. One bad frame never kills the object. A frame on
   * a connection whose token has expired closes it instead.
   */
  handleClientFrame(socket: WebSocket, message: string | ArrayBuffer): void {
    try {
      const subscriber = this.#subscriberOf(socket);
      if (subscriber === undefined || isExpired(subscriber, Date.now())) {
        this.#closeExpiredSocket(socket);
        return;
      }
      this.#scheduleExpiryCheck();
      if (typeof message !== "string") {
        this.#send(socket, JSON.stringify(errorEnvelope("invalid_frame", "Binary frames are not supported; send JSON text")));
        return;
      }
      if (byteLength(message) > maxClientFrameBytes) {
        this.#send(socket, JSON.stringify(errorEnvelope("frame_too_large", `Frames are limited to ${maxClientFrameBytes} bytes`)));
        return;
      }
      const parsed = parseJsonSafely(message);
      if (!parsed.ok) {
        this.#send(socket, JSON.stringify(errorEnvelope(parsed.code === "too_deep" ? "too_deep" : "invalid_frame", parsed.message)));
        return;
      }
      const value = parsed.value;
      if (typeof value === "object" && value !== null && "type" in value && value.type === "ping") {
        this.#send(socket, JSON.stringify({ type: "pong", at: new Date().toISOString() }));
        return;
      }
      this.#send(socket, JSON.stringify(errorEnvelope("invalid_frame", 'Unknown frame: this stream is server-to-client; the only client frame is {"type":"ping"}')));
    } catch {
      // never let a frame kill the object
    }
  }

  /** The socket's subscriber, from memory or its attachment; undefined when the attachment is unreadable. */
  #subscriberOf(socket: WebSocket): Subscriber | undefined {
    let subscriber = this.#subscribers.get(socket);
    if (subscriber === undefined) {
      let attachment: unknown;
      try {
        attachment = socket.deserializeAttachment();
      } catch {
        attachment = undefined;
      }
      const parsed = Subscriber.safeParse(attachment);
      subscriber = parsed.success ? parsed.data : null;
      this.#subscribers.set(socket, subscriber);
    }
    return subscriber ?? undefined;
  }

  #send(socket: WebSocket, frame: string): void {
    try {
      socket.send(frame);
    } catch {
      // the socket is closing; the runtime will deliver webSocketClose
    }
  }

  #closeExpiredSocket(socket: WebSocket): void {
    try {
      socket.close(tokenExpiredCloseCode, "token expired");
    } catch {
      // already closing
    }
  }

  #endExpiredSse(client: SseClient): void {
    const frame = encoder.encode(`event: error\ndata: ${JSON.stringify(errorEnvelope(tokenExpired.code, tokenExpired.message))}\n\n`);
    client.writer.write(frame).catch(() => undefined);
    this.#dropSse(client);
  }

  /** Closes what has expired, then sets the timer for the next expiry that is near enough. */
  #closeExpired(): void {
    this.#expiryTimer = undefined;
    const now = Date.now();
    for (const socket of this.ctx.getWebSockets()) {
      const subscriber = this.#subscriberOf(socket);
      if (subscriber !== undefined && isExpired(subscriber, now)) this.#closeExpiredSocket(socket);
    }
    for (const client of this.#sseClients) {
      if (isExpired(client, now)) this.#endExpiredSse(client);
    }
    this.#scheduleExpiryCheck();
  }

  /** `webSockets`: the subscribers of the open WebSockets, when the caller has just read them all. */
  #scheduleExpiryCheck(webSockets?: Subscriber[]): void {
    const now = Date.now();
    const subscribers: Subscriber[] = [...this.#sseClients];
    if (webSockets !== undefined) subscribers.push(...webSockets);
    else {
      for (const socket of this.ctx.getWebSockets("public")) {
        const subscriber = this.#subscriberOf(socket);
        if (subscriber !== undefined) subscribers.push(subscriber);
      }
    }
    const at = nextExpiryCheckAt(subscribers, now, expiryTimerHorizonMs);
    if (this.#expiryTimer !== undefined && this.#expiryTimer.at === at) return;
    if (this.#expiryTimer !== undefined) clearTimeout(this.#expiryTimer.timer);
    this.#expiryTimer = at === undefined ? undefined : { at, timer: setTimeout(() => this.#closeExpired(), Math.max(0, at - now)) };
  }

  #dropSse(client: SseClient): void {
    if (!this.#sseClients.delete(client)) return;
    client.writer.close().catch(() => undefined);
    if (this.#sseClients.size === 0 && this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  #startHeartbeat(): void {
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = setInterval(() => {
      const ping = encoder.encode(": ping\n\n");
      for (const client of this.#sseClients) client.writer.write(ping).catch(() => this.#dropSse(client));
      // SSE keeps the object awake anyway: a good moment to see whether an expiry came near.
      this.#scheduleExpiryCheck();
    }, sseHeartbeatMs);
  }
}
