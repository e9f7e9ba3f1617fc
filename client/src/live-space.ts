/**
 * `openSpace`: a `SpaceState` fed by a reconnecting subscription. It starts
 * from the beginning of the space's event log (or `afterSeq`), and when the
 * log no longer holds what it needs (a gap: the replay window of 5,000 events
 * was passed), it reads the missing messages with `GET …/messages`.
 */
import type { EventSubscription, StreamStatus, SubscribeOptions } from "./event-stream.js";
import { SpaceState } from "./space-state.js";
import type { SwitchboardError } from "./switchboard-error.js";
import type { Switchboard } from "./switchboard.js";
import type { SpaceEvent } from "./types.js";

export type OpenSpaceOptions = Omit<SubscribeOptions, "afterSeq"> & {
  /** Start after this seq (default 0: everything the space still has; with `state`, that state's last seq). */
  afterSeq?: number;
  /**
   * Carry on from a space opened before (its `state`, kept after `close()`):
   * the timeline it holds stays, and the stream resumes after its last seq,
   * so a view that goes away and comes back reads only what it missed.
   */
  state?: SpaceState;
};

type ChangeListener = (state: SpaceState, event?: SpaceEvent) => void;

export class LiveSpace {
  readonly state: SpaceState;
  readonly subscription: EventSubscription<SpaceEvent>;
  #changeListeners: ChangeListener[] = [];

  constructor(
    private readonly client: Switchboard,
    readonly spaceId: string,
    options: OpenSpaceOptions = {},
  ) {
    const { state, ...subscribeOptions } = options;
    if (state && state.spaceId !== spaceId) throw new TypeError(`openSpace(${spaceId}) was given the state of another space (${state.spaceId})`);
    this.state = state ?? new SpaceState(spaceId);
    const afterSeq = options.afterSeq ?? this.state.lastSeq;
    this.subscription = client.subscribe(spaceId, { ...subscribeOptions, afterSeq });
    this.subscription.on("event", (event) => {
      if (this.state.apply(event)) this.#changed(event);
    });
    this.subscription.on("gap", ({ afterSeq: from, firstSeq }) => {
      void this.#backfill(from, firstSeq - 1);
    });
  }

  get status(): StreamStatus {
    return this.subscription.status;
  }

  on(type: "change", listener: ChangeListener): () => void;
  on(type: "status", listener: (status: { status: StreamStatus; attempt: number; delayMs?: number; error?: SwitchboardError }) => void): () => void;
  on(type: "error", listener: (error: SwitchboardError) => void): () => void;
  on(type: "change" | "status" | "error", listener: (...values: never[]) => void): () => void {
    if (type === "change") {
      this.#changeListeners.push(listener as ChangeListener);
      return () => {
        this.#changeListeners = this.#changeListeners.filter((candidate) => candidate !== listener);
      };
    }
    return this.subscription.on(type as "status", listener as never);
  }

  close(): void {
    this.subscription.close();
  }

  #changed(event?: SpaceEvent): void {
    for (const listener of [...this.#changeListeners]) listener(this.state, event);
  }

  async #backfill(afterSeq: number, untilSeq: number): Promise<void> {
    try {
      const messages = await this.client.messages.all(this.spaceId, { afterSeq, untilSeq });
      this.state.loadMessages(messages);
      this.#changed();
    } catch {
      // The live stream goes on; the older messages stay missing until the next open.
    }
  }
}
