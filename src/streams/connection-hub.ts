/**
 * The live connections of one Durable Object: hibernatable WebSockets
 * (`ctx.acceptWebSocket`, tagged by audience and entity) and SSE streams
 * (in memory; an open SSE response keeps the object alive). Replay and
 * registration happen in one synchronous turn, so the seam between replayed
 * and live events has no gap and no duplicate.
 */
import { errorEnvelope } from "../errors";
import { byteLength, parseJsonSafely } from "../json";
import type { StreamLog } from "./event-log";
import { openStream } from "./open-stream";

export type Audience = "secret" | "public";

export type Subscriber = { audience: Audience; entityId?: string };

type SseClient = Subscriber & { writer: WritableStreamDefaultWriter<Uint8Array> };

const encoder = new TextEncoder();
const maxClientFrameBytes = 64 * 1024;
const sseHeartbeatMs = 20_000;

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
    for (const { frame } of replay) server.send(frame);
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
    for (const socket of this.ctx.getWebSockets("secret")) this.#send(socket, frame);
    for (const socket of this.ctx.getWebSockets("public")) this.#send(socket, publicFrame);
    if (this.#sseClients.size === 0) return;
    const full = sseFrame(seq, frame);
    const redacted = publicFrame === frame ? full : sseFrame(seq, publicFrame);
    for (const client of this.#sseClients) {
      client.writer.write(client.audience === "secret" ? full : redacted).catch(() => this.#dropSse(client));
    }
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
   * anything else gets an error frame in the contract's envelope and the
   * connection stays open. One bad frame never kills the object.
   */
  handleClientFrame(socket: WebSocket, message: string | ArrayBuffer): void {
    try {
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
        this.#send(socket, JSON.stringify(errorEnvelope("invalid_frame", parsed.message)));
        return;
      }
      const value = parsed.value;
      if (typeof value === "object" && value !== null && "type" in value && value.type === "ping") {
        this.#send(socket, JSON.stringify({ type: "pong", at: new Date().toISOString() }));
        return;
      }
      this.#send(
        socket,
        JSON.stringify(errorEnvelope("invalid_frame", 'Unknown frame: this stream is server-to-client; the only client frame is {"type":"ping"}')),
      );
    } catch {
      // never let a frame kill the object
    }
  }

  #send(socket: WebSocket, frame: string): void {
    try {
      socket.send(frame);
    } catch {
      // the socket is closing; the runtime will deliver webSocketClose
    }
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
    }, sseHeartbeatMs);
  }
}
