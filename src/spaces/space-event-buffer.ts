/**
 * Batches space events per space and delivers them in order with one SpaceDO
 * RPC per batch, so a model streaming hundreds of deltas costs a handful of
 * calls. `drain` resolves once everything queued so far has been delivered.
 */
import type { AppEnv } from "../env";
import type { SpaceEventInput } from "./space-event";
import { spaceStub } from "./space-stub";

export class SpaceEventBuffer {
  #queues = new Map<string, SpaceEventInput[]>();
  #flushing = new Map<string, Promise<void>>();

  constructor(private readonly env: AppEnv) {}

  push(spaceId: string, event: SpaceEventInput): void {
    const queue = this.#queues.get(spaceId);
    if (queue) queue.push(event);
    else this.#queues.set(spaceId, [event]);
    if (!this.#flushing.has(spaceId)) this.#flushing.set(spaceId, this.#flush(spaceId));
  }

  /** Waits until every event pushed for the space (or all spaces) has been delivered. */
  async drain(spaceId?: string): Promise<void> {
    for (;;) {
      const pending = spaceId ? [this.#flushing.get(spaceId)] : [...this.#flushing.values()];
      const waiting = pending.filter((promise): promise is Promise<void> => promise !== undefined);
      if (waiting.length === 0) return;
      await Promise.all(waiting);
    }
  }

  async #flush(spaceId: string): Promise<void> {
    try {
      // Let the current burst of pushes accumulate before the first call.
      await Promise.resolve();
      for (;;) {
        const batch = this.#queues.get(spaceId);
        if (!batch || batch.length === 0) break;
        this.#queues.delete(spaceId);
        try {
          await spaceStub(this.env, spaceId).emitMany(spaceId, batch);
        } catch (error) {
          console.error("space event delivery failed", spaceId, error);
        }
      }
    } finally {
      this.#flushing.delete(spaceId);
      if (this.#queues.get(spaceId)?.length) this.#flushing.set(spaceId, this.#flush(spaceId));
    }
  }
}
