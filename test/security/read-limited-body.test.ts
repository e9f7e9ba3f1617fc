/**
 * The one limited body reader (answers the gateway fetches, and request
 * bodies the routes read): a body of exactly the limit is read whole, one
 * byte more is refused (or cut, when asked), and the stream is cancelled the
 * moment the limit is passed, not read to its end.
 */
import { describe, expect, it } from "vitest";
import { readLimitedBody } from "../../src/security/read-limited-body";
import { waitUntil } from "../support/agents";

/** A stream of `chunks`, counting how many were pulled and whether it was cancelled. */
function chunkedStream(chunks: Uint8Array[]) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[seen.pulled];
      seen.pulled += 1;
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

const bytes = (length: number, value = 7) => new Uint8Array(length).fill(value);

describe("readLimitedBody", () => {
  it("reads a body of exactly the limit, over several chunks, whole and in order", async () => {
    const { stream, seen } = chunkedStream([bytes(3, 1), bytes(4, 2), bytes(3, 3)]);
    const read = await readLimitedBody(stream, { maxBytes: 10 });
    expect(read).toEqual({ ok: true, bytes: Uint8Array.from([1, 1, 1, 2, 2, 2, 2, 3, 3, 3]) });
    expect(seen.cancelled).toBe(false);
  });

  it("refuses one byte over the limit and cancels the stream instead of reading on", async () => {
    const { stream, seen } = chunkedStream([bytes(6), bytes(5), bytes(100), bytes(100)]);
    expect(await readLimitedBody(stream, { maxBytes: 10 })).toEqual({ ok: false, reason: "too_large" });
    await waitUntil(() => seen.cancelled, 1_000, "the stream cancelled");
    expect(seen.pulled).toBeLessThan(4);
  });

  it("keeps the first bytes up to the limit when asked to truncate", async () => {
    const { stream, seen } = chunkedStream([bytes(6, 1), bytes(6, 2), bytes(6, 3), bytes(6, 4)]);
    const read = await readLimitedBody(stream, { maxBytes: 8, overflow: "truncate" });
    expect(read).toEqual({ ok: true, bytes: Uint8Array.from([1, 1, 1, 1, 1, 1, 2, 2]) });
    // Cancelling runs the source's cancel a little later: wait for it.
    await waitUntil(() => seen.cancelled, 1_000, "the stream cancelled");
    expect(seen.pulled).toBeLessThan(5);
  });

  it("an empty or missing body is no bytes", async () => {
    expect(await readLimitedBody(null, { maxBytes: 0 })).toEqual({ ok: true, bytes: new Uint8Array() });
    expect(await readLimitedBody(chunkedStream([]).stream, { maxBytes: 0 })).toEqual({ ok: true, bytes: new Uint8Array() });
  });

  it("gives up on a read that hangs when interrupted, and cancels the stream", async () => {
    let cancelled = false;
    const hanging = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined), cancel: () => void (cancelled = true) });
    const interrupted = Promise.reject(new Error("timed out"));
    await expect(readLimitedBody(hanging, { maxBytes: 10, interrupted })).rejects.toThrow("timed out");
    await waitUntil(() => cancelled, 1_000, "the stream cancelled");
  });
});
