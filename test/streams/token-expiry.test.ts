/**
 * A stream opened with a JWT ends when the token expires: WebSocket close
 * 4001, SSE an `event: error` frame with the error envelope and then the
 * end. After hibernation (no timer, nothing in memory) the expiry kept in the
 * socket's attachment is checked before every send.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConnectionHub } from "../../src/streams/connection-hub";
import { readSubscriber, subscriberHeaders } from "../../src/streams/open-stream";
import type { Subscriber } from "../../src/streams/subscriber";
import { waitUntil } from "../support/agents";
import { createHuman, createSpace, postMessage, tokenFor } from "../support/api";
import { expectErrorEnvelope } from "../support/error-envelope";
import { openSse, openWebSocket } from "../support/stream-client";

async function shortLivedHeaders(entityId: string, seconds: number) {
  return { "x-public-key": env.GATEWAY_PUBLIC_KEY, authorization: `Bearer ${await tokenFor(entityId, { expiresIn: seconds })}` };
}

describe("streams end when their token expires", () => {
  it("a WebSocket closes with 4001 when its token expires, and a long-lived one stays open", async () => {
    const member = await createHuman();
    const spaceId = await createSpace([member]);
    const short = await openWebSocket(`/api/spaces/${spaceId}/stream`, await shortLivedHeaders(member, 2));
    const long = await openWebSocket(`/api/spaces/${spaceId}/stream`, await shortLivedHeaders(member, 3600));
    await postMessage(spaceId, member, "before");
    await short.collector.waitForType("space.message");
    await waitUntil(() => short.collector.closed !== undefined, 5_000, "the short-lived socket to close");
    expect(short.collector.closed).toEqual({ code: 4001, reason: "token expired" });
    await postMessage(spaceId, member, "after");
    await long.collector.waitFor((event) => event.type === "space.message" && event.data.text === "after");
    expect(short.collector.events.map((event) => event.data.text)).toEqual(["before"]);
    expect(long.collector.closed).toBeUndefined();
    long.close();
  });

  it("an SSE stream gets an error frame with the envelope, then ends", async () => {
    const member = await createHuman();
    const spaceId = await createSpace([member]);
    const stream = await openSse(`/api/spaces/${spaceId}/stream`, await shortLivedHeaders(member, 2));
    await waitUntil(() => stream.collector.closed !== undefined, 5_000, "the SSE stream to end");
    const last = stream.collector.frames.at(-1);
    expectErrorEnvelope(last, "token_expired");
  });

  it("the secret key's streams have no expiry", () => {
    const secret = readSubscriber(new Headers({ [subscriberHeaders.audience]: "secret" }), Date.now());
    expect(secret).toEqual({ ok: true, subscriber: { audience: "secret" } });
  });
});

describe("who a stream is for fails closed", () => {
  const now = Date.UTC(2030, 0, 1);
  const refusal = async (headers: Record<string, string>) => {
    const result = readSubscriber(new Headers(headers), now);
    if (result.ok) throw new Error(`accepted ${JSON.stringify(result.subscriber)}`);
    return { status: result.response.status, body: await result.response.json() };
  };

  it("refuses a missing or unknown audience instead of treating it as the secret key", async () => {
    const cases: Record<string, string>[] = [{}, { [subscriberHeaders.audience]: "admin" }, { [subscriberHeaders.audience]: "SECRET" }, { [subscriberHeaders.audience]: "" }];
    for (const headers of cases) {
      const { status, body } = await refusal(headers);
      expect(status).toBe(403);
      expectErrorEnvelope(body, "forbidden");
    }
  });

  it("refuses a public stream without its entity or a readable expiry, and one whose token has expired", async () => {
    const audience = { [subscriberHeaders.audience]: "public" };
    expect((await refusal({ ...audience, [subscriberHeaders.entityId]: "ent_1" })).status).toBe(403);
    expect((await refusal({ ...audience, [subscriberHeaders.entityId]: "ent_1", [subscriberHeaders.expiresAt]: "soon" })).status).toBe(403);
    expect((await refusal({ ...audience, [subscriberHeaders.expiresAt]: String(now + 1000) })).status).toBe(403);
    const expired = await refusal({ ...audience, [subscriberHeaders.entityId]: "ent_1", [subscriberHeaders.expiresAt]: String(now) });
    expect(expired.status).toBe(401);
    expectErrorEnvelope(expired.body, "unauthorized");
    expect(readSubscriber(new Headers({ ...audience, [subscriberHeaders.entityId]: "ent_1", [subscriberHeaders.expiresAt]: String(now + 1) }), now)).toEqual({
      ok: true,
      subscriber: { audience: "public", entityId: "ent_1", expiresAt: now + 1 },
    });
  });
});

/** A hibernated object's sockets as a fresh hub sees them: only their attachments. */
class StoredSocket {
  sent: string[] = [];
  closed: { code: number; reason: string } | undefined;
  constructor(private readonly attachment: unknown) {}
  deserializeAttachment() {
    return this.attachment;
  }
  send(frame: string) {
    if (this.closed) throw new Error("closed");
    this.sent.push(frame);
  }
  close(code: number, reason: string) {
    this.closed ??= { code, reason };
  }
}

function wokenHub(sockets: StoredSocket[]) {
  const state = {
    setWebSocketAutoResponse() {},
    getWebSockets: (tag?: string) =>
      (sockets as unknown as WebSocket[]).filter((socket) => tag === undefined || (socket as unknown as StoredSocket).deserializeAttachment() !== null),
  } as unknown as DurableObjectState;
  return new ConnectionHub(state);
}

describe("after hibernation, the attachment's expiry is checked before every send", () => {
  it("sends to live connections only, closing expired, expiry-less public and unreadable ones with 4001", () => {
    const now = Date.now();
    const attachments: Record<string, Subscriber | unknown> = {
      live: { audience: "public", entityId: "ent_a", expiresAt: now + 3_600_000 },
      secret: { audience: "secret" },
      expired: { audience: "public", entityId: "ent_b", expiresAt: now - 1 },
      noExpiry: { audience: "public", entityId: "ent_c" },
      unreadable: { audience: "root" },
    };
    const sockets = Object.fromEntries(Object.entries(attachments).map(([name, attachment]) => [name, new StoredSocket(attachment)]));
    const hub = wokenHub(Object.values(sockets));
    hub.broadcast(7, '{"seq":7,"full":true}', '{"seq":7}');
    expect(sockets.live.sent).toEqual(['{"seq":7}']);
    expect(sockets.secret.sent).toEqual(['{"seq":7,"full":true}']);
    for (const name of ["expired", "noExpiry", "unreadable"]) {
      expect(sockets[name].sent).toEqual([]);
      expect(sockets[name].closed).toEqual({ code: 4001, reason: "token expired" });
    }
    expect(sockets.live.closed).toBeUndefined();
  });

  it("a client frame on an expired connection closes it instead of answering", () => {
    const expired = new StoredSocket({ audience: "public", entityId: "ent_b", expiresAt: Date.now() - 1 });
    const live = new StoredSocket({ audience: "public", entityId: "ent_a", expiresAt: Date.now() + 3_600_000 });
    const hub = wokenHub([expired, live]);
    hub.handleClientFrame(expired as unknown as WebSocket, '{"type":"ping"}');
    hub.handleClientFrame(live as unknown as WebSocket, '{"type":"ping"}');
    expect(expired.sent).toEqual([]);
    expect(expired.closed?.code).toBe(4001);
    expect(JSON.parse(live.sent[0])).toMatchObject({ type: "pong" });
  });
});
