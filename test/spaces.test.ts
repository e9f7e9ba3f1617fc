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
  it("a message written to D1 whose broadcast was lost in a crash is logged before the next event: no gap, no reused seq", async () => {
    const { env } = await import("cloudflare:workers");
    const { evictDurableObject } = await import("cloudflare:test");
    const ada = await createHuman();
    const spaceId = await createSpace([ada]);
    const first = await postMessage(spaceId, ada, "before the crash");
    // The crash: the row for seq first.seq + 1 is in D1, its event never left the object.
    await env.DB.prepare("INSERT INTO messages (id, space_id, seq, entity_id, role, text, status) VALUES (?, ?, ?, ?, 'user', ?, 'complete')")
      .bind("msg_orphan", spaceId, first.seq + 1, ada, "written, not broadcast")
      .run();
    await evictDurableObject(env.SPACE.get(env.SPACE.idFromName(spaceId)));
    const next = await postMessage(spaceId, ada, "after the restart");
    expect(next.seq).toBe(first.seq + 2);
    const { collector, close } = await openWebSocket(`/api/spaces/${spaceId}/stream?afterSeq=0`, await memberHeaders(ada));
    await collector.waitFor((event) => event.data.id === next.id);
    const seqs = collector.events.map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(collector.events.find((event) => event.seq === first.seq + 1)?.data).toMatchObject({ id: "msg_orphan", text: "written, not broadcast" });
    close();
  });
});
