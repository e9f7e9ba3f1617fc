/**
 * A cycle's line to the spaces it talks to. Calls from one stub reach a
 * Durable Object in the order they were made (E-order), and SpaceDO assigns
 * seqs in arrival order, so everything a cycle sends to a space goes through
 * one stub per space and is sent without waiting for the call before it:
 * streamed events, then the message they announce, stay in order with no
 * round trip in between. Events pushed within a short window travel in one
 * batch (one call, one storage commit in the space), so a streamed reply costs
 * a few calls, not one per delta.
 */
import type { AppEnv } from "../env";
import type { SpaceEventInput } from "../protocol/space-event";
import type { SpacePort } from "../protocol/space-port";
import type { SpaceChannel } from "../tools";
import { spaceStub } from "./space-stub";

/** How long streamed events wait for company: short enough to look live. */
export const batchWindowMs = 16;

export class SpaceEventBuffer implements SpaceChannel {
  #stubs = new Map<string, SpacePort>();
  #queued = new Map<string, SpaceEventInput[]>();
  #inFlight = new Set<Promise<unknown>>();
  #timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly env: AppEnv) {}

  push(spaceId: string, event: SpaceEventInput): void {
    const queue = this.#queued.get(spaceId);
    if (queue) {
      queue.push(event);
      return;
    }
    this.#queued.set(spaceId, [event]);
    this.#timers.set(
      spaceId,
      setTimeout(() => this.#send(spaceId), batchWindowMs),
    );
  }

  /**
   * The space's stub, after every event pushed so far has been sent on it:
   * a call made on it now is ordered after them.
   */
  ordered(spaceId: string): SpacePort {
    this.#send(spaceId);
    return this.#stub(spaceId);
  }

  /** Resolves when every call sent so far has been answered. */
  async drain(): Promise<void> {
    for (const spaceId of [...this.#queued.keys()]) this.#send(spaceId);
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Tracks a call made on an ordered stub, so `drain` waits for it too. */
  track<T>(call: Promise<T>): Promise<T> {
    this.#inFlight.add(call);
    void call.finally(() => this.#inFlight.delete(call)).catch(() => undefined);
    return call;
  }

  #stub(spaceId: string): SpacePort {
    let stub = this.#stubs.get(spaceId);
    if (!stub) {
      stub = spaceStub(this.env, spaceId);
      this.#stubs.set(spaceId, stub);
    }
    return stub;
  }

  #send(spaceId: string): void {
    const timer = this.#timers.get(spaceId);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(spaceId);
    const batch = this.#queued.get(spaceId);
    if (!batch) return;
    this.#queued.delete(spaceId);
    const call = this.#stub(spaceId)
      .emitMany(batch)
      .catch((error: unknown) => {
        console.error("space event delivery failed", spaceId, error);
        // A failed stub may be broken for good: the next call gets a fresh one.
        this.#stubs.delete(spaceId);
      });
    this.track(call);
  }
}
