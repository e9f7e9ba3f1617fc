import { describe, expect, it } from "vitest";
import { createHuman, createSpace, memberHeaders, postMessage, secret } from "./support/api";
import { openSse, openWebSocket } from "./support/stream-client";

describe("spaces and live fan-out", () => {
  it("a message is persisted, listed oldest first, and broadcast with a gap-free seq", async () => {
    const ada = await createHuman("Ada");
    const spaceId = await createSpace([ada]);
    const { collector, close } = await openWebSocket(`/api/spaces/${spaceId}/stream?afterSeq=0`, await memberHeaders(ada));
    const first = await postMessage(spaceId, ada, "hello");
    const second = await postMessage(spaceId, ada, "world");
    await collector.waitFor((event) => event.type === "space.message" && event.data.id === second.id);
    const seqs = collector.events.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(collector.events[0]).toMatchObject({ type: "space.member.joined", spaceId, data: { entityId: ada } });
    const listed = await secret<{ messages: { id: string; text: string; seq: number }[] }>(`/api/spaces/${spaceId}/messages`);
    expect(listed.body.messages.map((message) => message.text)).toEqual(["hello", "world"]);
    expect(first.seq).toBeLessThan(second.seq);
    const after = await secret<{ messages: { id: string }[] }>(`/api/spaces/${spaceId}/messages?afterSeq=${first.seq}&limit=1`);
    expect(after.body.messages.map((message) => message.id)).toEqual([second.id]);
    close();
  });

  it("afterSeq replays what a client missed, then continues live with no gap and no duplicate", async () => {
    const ada = await createHuman();
    const spaceId = await createSpace([ada]);
    for (let index = 0; index < 5; index += 1) await postMessage(spaceId, ada, `m${index}`);
    const { collector, close } = await openWebSocket(`/api/spaces/${spaceId}/stream?afterSeq=3`, await memberHeaders(ada));
    const live = await postMessage(spaceId, ada, "live");
    await collector.waitFor((event) => event.data.id === live.id);
    expect(collector.events.map((event) => event.seq)).toEqual([4, 5, 6, 7]);
    close();
  });

  it("SSE serves the same events with ids", async () => {
    const ada = await createHuman();
    const spaceId = await createSpace([ada]);
    await postMessage(spaceId, ada, "before");
    const { collector, close, response } = await openSse(`/api/spaces/${spaceId}/stream?afterSeq=0`, await memberHeaders(ada));
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const live = await postMessage(spaceId, ada, "after");
    await collector.waitFor((event) => event.data.id === live.id);
    expect(collector.events.map((event) => event.type)).toEqual(["space.member.joined", "space.message", "space.message"]);
    close();
  });

  it("membership changes are broadcast and a removed member's connections are closed", async () => {
    const ada = await createHuman("Ada");
    const bob = await createHuman("Bob");
    const spaceId = await createSpace([ada]);
    const watcher = await openWebSocket(`/api/spaces/${spaceId}/stream`, await memberHeaders(ada));
    expect((await secret(`/api/spaces/${spaceId}/members`, { body: { entityId: bob } })).status).toBe(201);
    await watcher.collector.waitFor((event) => event.type === "space.member.joined" && event.data.entityId === bob);
    const bobSocket = await openWebSocket(`/api/spaces/${spaceId}/stream`, await memberHeaders(bob));
    expect((await secret(`/api/spaces/${spaceId}/members/${bob}`, { method: "DELETE" })).status).toBe(200);
    await watcher.collector.waitFor((event) => event.type === "space.member.left" && event.data.entityId === bob);
    await waitUntil(() => bobSocket.collector.closed !== undefined);
    expect(bobSocket.collector.closed?.code).toBe(4003);
    const denied = await secret(`/api/spaces/${spaceId}/messages`, { body: { text: "still here?", entityId: bob } });
    expect(denied.status).toBe(403);
    watcher.close();
  });

  it("a WebSocket ping frame is answered and a bad frame gets an error envelope without closing", async () => {
    const ada = await createHuman();
    const spaceId = await createSpace([ada]);
    const { socket, collector, close } = await openWebSocket(`/api/spaces/${spaceId}/stream`, await memberHeaders(ada));
    socket.send("{nope");
    socket.send(JSON.stringify({ type: "ping" }));
    await waitUntil(() => collector.frames.length >= 2);
    expect(collector.frames[0]).toMatchObject({ error: { code: "invalid_frame" } });
    expect(collector.frames[1]).toMatchObject({ type: "pong" });
    const message = await postMessage(spaceId, ada, "still open");
    await collector.waitFor((event) => event.data.id === message.id);
    close();
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("space recovery", () => {
  it("a space from before its object kept messages: a D1 message whose broadcast was lost is logged once, before the next event: no gap, no reused seq", async () => {
    const { env } = await import("cloudflare:workers");
    const { evictDurableObject, runInDurableObject } = await import("cloudflare:test");
    const ada = await createHuman();
    const spaceId = await createSpace([ada]);
    const stub = env.SPACE.get(env.SPACE.idFromName(spaceId));
    // What the earlier code left: a message in D1 with its event in the log, then (the crash) a row for
    // the next seq in D1 whose event never left the object; and no note that D1 was ever checked.
    const first = await runInDurableObject(stub, async (_instance, state) => {
      const seq = (state.storage.sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM event_log").one().seq ?? 0) + 1;
      const message = { id: `msg_before_${spaceId}`, spaceId, seq, entityId: ada, role: "user", status: "complete", createdAt: new Date().toISOString(), text: "before the crash" };
      state.storage.sql.exec(
        "INSERT INTO event_log (seq, frame, public_frame) VALUES (?, ?, NULL)",
        seq,
        JSON.stringify({ seq, spaceId, type: "space.message", at: message.createdAt, data: message }),
      );
      state.storage.sql.exec("DELETE FROM message_meta WHERE key = 'd1_checked'");
      return message;
    });
    await env.DB.batch([
      env.DB.prepare("INSERT INTO messages (id, space_id, seq, entity_id, role, text, status) VALUES (?, ?, ?, ?, 'user', ?, 'complete')").bind(
        first.id,
        spaceId,
        first.seq,
        ada,
        first.text,
      ),
      env.DB.prepare("INSERT INTO messages (id, space_id, seq, entity_id, role, text, status) VALUES (?, ?, ?, ?, 'user', ?, 'complete')").bind(
        "msg_orphan",
        spaceId,
        first.seq + 1,
        ada,
        "written, not broadcast",
      ),
    ]);
    await evictDurableObject(stub);
    const next = await postMessage(spaceId, ada, "after the restart");
    expect(next.seq).toBe(first.seq + 2);
    const { collector, close } = await openWebSocket(`/api/spaces/${spaceId}/stream?afterSeq=0`, await memberHeaders(ada));
    await collector.waitFor((event) => event.data.id === next.id);
    const seqs = collector.events.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(collector.events.find((event) => event.seq === first.seq + 1)?.data).toMatchObject({ id: "msg_orphan", text: "written, not broadcast" });
    close();
    // The history reads the old messages from D1 and the new one from the object, in order.
    const history = await secret<{ messages: { id: string }[] }>(`/api/spaces/${spaceId}/messages?afterSeq=0`);
    expect(history.body.messages.map((message) => message.id)).toEqual([first.id, "msg_orphan", next.id]);
  });
});
