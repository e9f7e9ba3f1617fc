/**
 * The space's messages live in its object first and reach D1 afterwards
 * (write-behind). Tested by crashing: an object killed between its local
 * write and the D1 flush loses nothing (its alarm writes the rows), nothing is
 * written twice, and history reads stay whole across the seam between what the
 * object holds and what only D1 has.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createHuman, createSpace, postMessage, secret } from "../support/api";
import { waitUntil } from "../support/agents";
import type { SpaceDO } from "../../src/spaces/space-do";
import { MessageStore } from "../../src/spaces/message-store";

const spaceObject = (spaceId: string) => env.SPACE.getByName(spaceId);

async function d1Texts(spaceId: string): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT text FROM messages WHERE space_id = ? ORDER BY seq").bind(spaceId).all<{ text: string }>();
  return results.map((row) => row.text);
}

async function readAll(spaceId: string, limit = 200): Promise<{ seq: number; text?: string }[]> {
  const read: { seq: number; text?: string }[] = [];
  for (let after = 0; ; ) {
    const page = (await secret<{ messages: { seq: number; text?: string }[] }>(`/api/spaces/${spaceId}/messages?afterSeq=${after}&limit=${limit}`)).body.messages;
    read.push(...page);
    if (page.length < limit) return read;
    after = page[page.length - 1].seq;
  }
}

describe("the space log in the object", () => {
  it("a message is readable at once (before D1 has it) and reaches D1 once", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const posted = await postMessage(spaceId, person, "first");
    expect((await readAll(spaceId)).map((message) => message.text)).toEqual(["first"]);
    await waitUntil(async () => (await d1Texts(spaceId)).length === 1, 5_000, "the write-behind reached D1");
    expect(await d1Texts(spaceId)).toEqual(["first"]);
    const { results } = await env.DB.prepare("SELECT id, seq FROM messages WHERE space_id = ?").bind(spaceId).all<{ id: string; seq: number }>();
    expect(results).toEqual([{ id: posted.id, seq: posted.seq }]);
  });

  it("killed between the local write and the D1 flush: the alarm writes every message after the restart, none twice", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    // Written inside the object and checked there, in the same turn, before the flush timer could run.
    const unflushed = await runInDurableObject(spaceObject(spaceId), async (instance: SpaceDO, state) => {
      for (let index = 0; index < 5; index += 1) await instance.postMessage({ entityId: person, role: "user", text: `m${index}` });
      return state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE dirty = 1").one().n;
    });
    expect(unflushed).toBe(5);
    await abortAllDurableObjects();
    // The kill took the flush timer with it; what is left is the alarm the object set as its backstop.
    expect(await runDurableObjectAlarm(spaceObject(spaceId))).toBe(true);
    await waitUntil(async () => (await d1Texts(spaceId)).length === 5, 5_000, "the alarm flushed the messages");
    expect(await d1Texts(spaceId)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    // And the stream's history agrees with D1, seq for seq.
    const { results } = await env.DB.prepare("SELECT seq FROM messages WHERE space_id = ? ORDER BY seq").bind(spaceId).all<{ seq: number }>();
    expect((await readAll(spaceId)).map((message) => message.seq)).toEqual(results.map((row) => row.seq));
    const dirty = await runInDurableObject(
      spaceObject(spaceId),
      async (_instance: SpaceDO, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE dirty = 1").one().n,
    );
    expect(dirty).toBe(0);
  });

  it("a card settled after the object died is written over D1's copy, not beside it", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    const part = { type: "tool_call" as const, toolCallId: "call_x", toolName: "ask", args: {}, status: "requires_action" as const };
    await runInDurableObject(spaceObject(spaceId), async (instance: SpaceDO) => {
      await instance.postMessage({ id: "msg_card_x", entityId: person, role: "tool", parts: [part], status: "requires_action" });
    });
    await waitUntil(async () => (await d1Texts(spaceId)).length === 1, 5_000, "the card reached D1");
    await runInDurableObject(spaceObject(spaceId), async (instance: SpaceDO) => {
      await instance.updateToolPart("msg_card_x", "call_x", { status: "complete", result: { answer: 42 } }, "complete");
    });
    await abortAllDurableObjects();
    await runDurableObjectAlarm(spaceObject(spaceId));
    await waitUntil(
      async () => (await env.DB.prepare("SELECT status FROM messages WHERE id = 'msg_card_x'").first<{ status: string }>())?.status === "complete",
      5_000,
      "the settled card reached D1",
    );
    const rows = await env.DB.prepare("SELECT parts FROM messages WHERE space_id = ?").bind(spaceId).all<{ parts: string }>();
    expect(rows.results).toHaveLength(1);
    expect(JSON.parse(rows.results[0].parts)).toMatchObject([{ toolCallId: "call_x", status: "complete", result: { answer: 42 } }]);
  });

  it("history reads join D1 and the object with no gap: older messages trimmed from the object come from D1", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    for (let index = 0; index < 12; index += 1) await postMessage(spaceId, person, `h${index}`);
    await waitUntil(async () => (await d1Texts(spaceId)).length === 12, 5_000, "all twelve in D1");
    // Trim the object's copy down to the newest 4 (the object keeps 1,000 and a day's worth; a smaller store shows the seam).
    const windowStart = await runInDurableObject(spaceObject(spaceId), async (_instance: SpaceDO, state) => {
      const store = new MessageStore(state.storage.sql, 4, 0);
      store.trim();
      return store.windowStart();
    });
    await abortAllDurableObjects();
    const kept = await runInDurableObject(
      spaceObject(spaceId),
      async (_instance: SpaceDO, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages").one().n,
    );
    expect(kept).toBe(4);
    const texts = Array.from({ length: 12 }, (_, index) => `h${index}`);
    // Pages that cross the seam, at every page size.
    for (const limit of [1, 3, 5, 12, 50]) expect((await readAll(spaceId, limit)).map((message) => message.text)).toEqual(texts);
    const all = await readAll(spaceId);
    expect(all.filter((message) => message.seq < (windowStart ?? 0)).length).toBe(8);
    // And the newest-first reads of the built-ins (enter_space, read_messages) cross it too.
    const recent = await runInDurableObject(spaceObject(spaceId), async (instance: SpaceDO) => [await instance.recentMessages(6), await instance.recentMessages(5, 5)]);
    expect(recent[0].map((message) => message.text)).toEqual(texts.slice(6));
    expect(recent[1].map((message) => message.text)).toEqual(texts.slice(2, 7));
    // A new message after the restart lands above the window, readable with the rest.
    await postMessage(spaceId, person, "h12");
    expect((await readAll(spaceId, 5)).map((message) => message.text)).toEqual([...texts, "h12"]);
  });

  it("a space from before the object kept messages reads its old history from D1 and the new from the object", async () => {
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    // What the earlier code left: messages in D1 only, their events in the log.
    await runInDurableObject(spaceObject(spaceId), async (_instance: SpaceDO, state) => {
      const last = state.storage.sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM event_log").one().seq ?? 0;
      for (let index = 1; index <= 3; index += 1) {
        const seq = last + index;
        const message = {
          id: `msg_old_${spaceId}_${index}`,
          spaceId,
          seq,
          entityId: person,
          role: "user",
          status: "complete",
          createdAt: new Date().toISOString(),
          text: `old${index}`,
        };
        state.storage.sql.exec(
          "INSERT INTO event_log (seq, frame, public_frame) VALUES (?, ?, NULL)",
          seq,
          JSON.stringify({ seq, spaceId, type: "space.message", at: message.createdAt, data: message }),
        );
        await env.DB.prepare("INSERT INTO messages (id, space_id, seq, entity_id, role, text, status, created_at) VALUES (?, ?, ?, ?, 'user', ?, 'complete', ?)")
          .bind(message.id, spaceId, seq, person, message.text, message.createdAt)
          .run();
      }
    });
    await abortAllDurableObjects();
    await postMessage(spaceId, person, "new1");
    await postMessage(spaceId, person, "new2");
    expect((await readAll(spaceId, 2)).map((message) => message.text)).toEqual(["old1", "old2", "old3", "new1", "new2"]);
    await waitUntil(async () => (await d1Texts(spaceId)).length === 5, 5_000, "the new messages reached D1");
    expect(await d1Texts(spaceId)).toEqual(["old1", "old2", "old3", "new1", "new2"]);
  });
});
