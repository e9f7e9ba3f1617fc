/**
 * The benchmark floor: a bare Durable Object with hibernatable WebSockets.
 * `GET /rooms/:name` with `Upgrade: websocket` joins the room;
 * `POST /rooms/:name/broadcast` sends the request body, as one text frame, to
 * every socket in the room and answers `{sent}`. Nothing else: no auth, no
 * storage, no sequence numbers. The Worker reaches the object over RPC for the
 * broadcast, as the gateway does, and over `fetch` only for the upgrade.
 */
import { DurableObject } from "cloudflare:workers";

type FloorEnv = { ROOM: DurableObjectNamespace<FloorRoom> };

export class FloorRoom extends DurableObject<FloorEnv> {
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Sends `text` to every connected socket; returns how many it reached. */
  broadcast(text: string): number {
    let sent = 0;
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(text);
        sent += 1;
      } catch {
        // A socket that is closing is not an error for the others.
      }
    }
    return sent;
  }

  webSocketMessage(): void {
    // Clients only listen.
  }

  webSocketClose(socket: WebSocket, code: number): void {
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
    } catch {
      // Already closed.
    }
  }
}

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const match = /^\/rooms\/([\w-]{1,64})(\/broadcast)?$/.exec(new URL(request.url).pathname);
    if (!match) {
      return request.method === "GET" ? Response.json({ ok: true, floor: true }) : new Response("not found", { status: 404 });
    }
    const room = env.ROOM.get(env.ROOM.idFromName(match[1]));
    if (!match[2]) return room.fetch(request);
    if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
    const sent = await room.broadcast(await request.text());
    return Response.json({ sent });
  }
} satisfies ExportedHandler<FloorEnv>;
