/**
 * The tests' stream client closes what it opens when the test ends, pass or
 * fail, so a failed assertion never leaves a stream open for the next test.
 * Checked from an end-of-test hook registered first: hooks run last
 * registered first, so it runs after the client's own.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { createHuman, createSpace, memberHeaders, postMessage, secretHeaders } from "../support/api";
import { waitUntil } from "../support/agents";
import { openSse, openWebSocket } from "../support/stream-client";

describe("the tests' stream client", () => {
  it("closes an SSE stream and a WebSocket the test left open, once the test is over", async () => {
    let opened: { sse: Awaited<ReturnType<typeof openSse>>; socket: Awaited<ReturnType<typeof openWebSocket>> } | undefined;
    onTestFinished(async () => {
      await waitUntil(() => opened?.sse.collector.closed !== undefined, 5_000, "the SSE stream closed by the end of the test");
      // Closed from this side: the socket is closing or closed.
      expect(opened?.socket.socket.readyState).toBeGreaterThanOrEqual(2);
    });
    const person = await createHuman();
    const spaceId = await createSpace([person]);
    opened = {
      sse: await openSse(`/api/spaces/${spaceId}/stream?afterSeq=0`, secretHeaders),
      socket: await openWebSocket(`/api/spaces/${spaceId}/stream?afterSeq=0`, await memberHeaders(person)),
    };
    const posted = await postMessage(spaceId, person, "hello");
    await opened.sse.collector.waitFor((event) => event.data.id === posted.id);
    await opened.socket.collector.waitFor((event) => event.data.id === posted.id);
    // Nothing here closes them.
    expect(opened.sse.collector.closed).toBeUndefined();
    expect(opened.socket.socket.readyState).toBe(1);
  });
});
