/**
 * The benchmark floors: the least a Worker + one Durable Object (+ D1) can do.
 * No auth, no validation, no drizzle, no sequence numbers.
 *
 * - `GET /rooms/:name` with `Upgrade: websocket` joins the room (a
 *   hibernatable WebSocket; the Worker reaches the object over `fetch` only
 *   for the upgrade).
 * - `POST /rooms/:name/broadcast`: one Worker→object RPC that sends the
 *   request body, as one text frame, to every socket in the room; answers
 *   `{sent}`. (space-fanout; tool-roundtrip's "RPC + frame" floor.)
 * - `POST /rooms/:name/rpc`: one Worker→object RPC returning a small value;
 *   answers `{ok, calls}`. (tool-roundtrip's bare RPC floor.)
 * - `POST /rooms/:name/alarm`: one RPC that sets the object's alarm to now;
 *   the `alarm()` handler then broadcasts `{"type":"alarm","n":…}` to the room.
 *   (agent-cycle: what waking through an alarm costs, as the AgentDO does.)
 * - `POST /setup {spaceId}`: inserts the one `spaces` row the message rows of
 *   `/cycle` refer to (the schema has a foreign key).
 * - `POST /rooms/:name/cycle {runId, messageId, spaceId, agentId, agentEntityId,
 *   text, seq, trigger, steps, toolCalls, usage}`: the D1 writes of one agent
 *   cycle with one send_message, in the gateway's order: INSERT the person's
 *   message row, INSERT the run row, INSERT the reply row, one Worker→object
 *   RPC that broadcasts the reply
 *   frame (shaped like a `space.message` event) to the room's sockets, then
 *   UPDATE the run row. Answers `{sent}` after the UPDATE. The tables are the
 *   gateway's own (bench/run.mjs applies ../../migrations to this D1).
 * - `POST /units/:kind?n=N`: N runtime operations of one kind in a row, so the
 *   bench can read what one costs (CPU of the whole `wrangler dev` tree over
 *   N): `sql` (one SQLite upsert in the object), `alarm` (getAlarm + setAlarm
 *   an hour ahead, in the object), `rpc` (one Worker→object RPC), `d1` (one
 *   D1 read of a row by primary key), `await` (one await in the object: the
 *   loop's own cost).
 */
import { DurableObject } from "cloudflare:workers";

type FloorEnv = { ROOM: DurableObjectNamespace<FloorRoom>; DB: D1Database };

type CycleInput = {
  runId: string;
  messageId: string;
  spaceId: string;
  agentId: string;
  agentEntityId: string;
  text: string;
  seq: number;
  trigger: unknown;
  steps: unknown;
  toolCalls: unknown;
  usage: unknown;
};

export class FloorRoom extends DurableObject<FloorEnv> {
  #calls = 0;
  #alarms = 0;

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

  /** The smallest useful RPC: count the call, answer a small value. */
  ping(): { ok: true; calls: number } {
    this.#calls += 1;
    return { ok: true, calls: this.#calls };
  }

  /** `n` operations of one kind in a row (the unit-cost measure); answers how many ran. */
  async units(kind: "sql" | "alarm" | "await", n: number): Promise<number> {
    const sql = this.ctx.storage.sql;
    if (kind === "sql") sql.exec("CREATE TABLE IF NOT EXISTS units (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    for (let index = 0; index < n; index += 1) {
      if (kind === "sql") sql.exec("INSERT INTO units (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", `k${index % 16}`, `v${index}`);
      else if (kind === "alarm") {
        await this.ctx.storage.getAlarm();
        await this.ctx.storage.setAlarm(Date.now() + 3_600_000 + index);
      } else await Promise.resolve();
    }
    if (kind === "alarm") await this.ctx.storage.deleteAlarm();
    return n;
  }

  /** Arms the alarm for now; `alarm()` tells the room. */
  async armAlarm(): Promise<number> {
    this.#alarms += 1;
    await this.ctx.storage.setAlarm(Date.now());
    return this.#alarms;
  }

  async alarm(): Promise<void> {
    this.broadcast(JSON.stringify({ type: "alarm", n: this.#alarms }));
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

async function cycle(env: FloorEnv, room: DurableObjectStub<FloorRoom>, input: CycleInput): Promise<number> {
  const json = (value: unknown) => JSON.stringify(value ?? null);
  // The person's message that starts the cycle (its own seq range, clear of the replies').
  await env.DB.prepare(
    "INSERT INTO messages (id, space_id, seq, entity_id, role, text, parts, mentions, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'user', ?, NULL, NULL, 'complete', ?, NULL)",
  )
    .bind(`${input.messageId}-in`, input.spaceId, 1_000_000 + input.seq, input.agentEntityId, "hi", new Date().toISOString())
    .run();
  await env.DB.prepare("INSERT INTO runs (id, agent_id, agent_entity_id, status, trigger) VALUES (?, ?, ?, 'running', ?)")
    .bind(input.runId, input.agentId, input.agentEntityId, json(input.trigger))
    .run();
  const createdAt = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO messages (id, space_id, seq, entity_id, role, text, parts, mentions, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'assistant', ?, NULL, NULL, 'complete', ?, NULL)",
  )
    .bind(input.messageId, input.spaceId, input.seq, input.agentEntityId, input.text, createdAt)
    .run();
  const frame = JSON.stringify({
    seq: input.seq,
    spaceId: input.spaceId,
    type: "space.message",
    at: createdAt,
    data: { id: input.messageId, spaceId: input.spaceId, seq: input.seq, entityId: input.agentEntityId, role: "assistant", status: "complete", createdAt, text: input.text },
  });
  const sent = await room.broadcast(frame);
  await env.DB.prepare("UPDATE runs SET status = 'completed', steps = ?, tool_calls = ?, usage = ?, error = NULL, d1_statements = 3, finished_at = ? WHERE id = ?")
    .bind(json(input.steps), json(input.toolCalls), json(input.usage), new Date().toISOString(), input.runId)
    .run();
  return sent;
}

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/setup" && request.method === "POST") {
      const { spaceId } = (await request.json()) as { spaceId: string };
      await env.DB.prepare("INSERT OR IGNORE INTO spaces (id, name) VALUES (?, ?)").bind(spaceId, `floor ${spaceId}`).run();
      return Response.json({ ok: true });
    }
    const units = /^\/units\/(sql|alarm|rpc|d1|await)$/.exec(url.pathname);
    if (units && request.method === "POST") {
      const n = Math.min(100_000, Math.max(1, Number(url.searchParams.get("n")) || 1));
      const room = env.ROOM.get(env.ROOM.idFromName("units"));
      const kind = units[1] as "sql" | "alarm" | "rpc" | "d1" | "await";
      if (kind === "rpc") for (let index = 0; index < n; index += 1) await room.ping();
      else if (kind === "d1")
        for (let index = 0; index < n; index += 1)
          await env.DB.prepare("SELECT id FROM spaces WHERE id = ?")
            .bind(`spc_${index % 16}`)
            .first();
      else await room.units(kind, n);
      return Response.json({ kind, n });
    }
    const match = /^\/rooms\/([\w-]{1,64})(?:\/(broadcast|rpc|alarm|cycle))?$/.exec(url.pathname);
    if (!match) {
      return request.method === "GET" ? Response.json({ ok: true, floor: true }) : new Response("not found", { status: 404 });
    }
    const room = env.ROOM.get(env.ROOM.idFromName(match[1]));
    if (!match[2]) return room.fetch(request);
    if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
    switch (match[2]) {
      case "broadcast":
        return Response.json({ sent: await room.broadcast(await request.text()) });
      case "rpc":
        return Response.json(await room.ping());
      case "alarm":
        return Response.json({ n: await room.armAlarm() });
      default:
        return Response.json({ sent: await cycle(env, room, (await request.json()) as CycleInput) });
    }
  },
} satisfies ExportedHandler<FloorEnv>;
