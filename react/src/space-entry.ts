/**
 * One space as the provider holds it: a single live connection (the SDK's
 * `LiveSpace`) shared by every hook and card that shows the space, opened
 * when the first one subscribes and closed when the last one leaves.
 *
 * The space's `SpaceState` outlives the connection. When a view comes back (a
 * remount, another space and back), the space opens again on the same state
 * and its stream resumes after the state's last seq: the timeline is there at
 * once, only what was missed is read, and nothing shows twice. A reconnect
 * while open resumes the same way, inside the SDK's subscription.
 */
import {
  type LiveSpace,
  type OpenSpaceOptions,
  type SpaceEvent,
  type SpaceMember,
  SpaceState,
  type StreamStatus,
  type Switchboard,
  type SwitchboardError,
} from "@switchboard/client";
import { type SpaceSnapshot, spaceSnapshot } from "./space-snapshot.js";

/** What opening a space may set: the transport, the reconnect backoff, where the first opening starts (`afterSeq`). */
export type SpaceOptions = Omit<OpenSpaceOptions, "state" | "signal">;

export class SpaceEntry {
  readonly state: SpaceState;
  #live: LiveSpace | undefined;
  #opened = false;
  #users = 0;
  #closeTimer: ReturnType<typeof setTimeout> | undefined;
  #listeners = new Set<() => void>();
  #memberListeners = new Set<() => void>();
  #snapshot: SpaceSnapshot | undefined;
  #status: StreamStatus = "connecting";
  #error: SwitchboardError | undefined;
  #members: readonly SpaceMember[] = [];
  #membersRead = 0;

  constructor(
    private readonly client: Switchboard,
    readonly spaceId: string,
    private readonly options: SpaceOptions,
    /** Told after every change (the provider's tool handlers look for cards to answer). */
    private readonly onChange: (entry: SpaceEntry) => void,
  ) {
    this.state = new SpaceState(spaceId);
  }

  /** The live space while it is open (for what the hooks do not cover). */
  get live(): LiveSpace | undefined {
    return this.#live;
  }

  get members(): readonly SpaceMember[] {
    return this.#members;
  }

  /** For `useSyncExternalStore`: keeps the space open while subscribed. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    const release = this.retain();
    return () => {
      this.#listeners.delete(listener);
      release();
    };
  };

  /** For `useSyncExternalStore`: the same object until something changes. */
  getSnapshot = (): SpaceSnapshot => {
    this.#snapshot ??= spaceSnapshot(this.state, { status: this.#live ? this.#status : "closed", error: this.#error, members: this.#members });
    return this.#snapshot;
  };

  /** The members alone (cards read them to know who may answer, without redrawing at every streamed word). */
  subscribeMembers = (listener: () => void): (() => void) => {
    this.#memberListeners.add(listener);
    return () => this.#memberListeners.delete(listener);
  };

  getMembers = (): readonly SpaceMember[] => this.#members;

  /** Keeps the space open until the returned function is called. */
  retain(): () => void {
    this.#users += 1;
    clearTimeout(this.#closeTimer);
    this.#closeTimer = undefined;
    if (!this.#live) this.#open();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#users -= 1;
      // Closed on the next turn, not at once: React unmounts and mounts again in one go (Strict Mode, a moved
      // component), and that should not cost a new connection.
      if (this.#users === 0) this.#closeTimer = setTimeout(() => this.close(), 0);
    };
  }

  /** Closes the connection now; the state stays, and the next `retain` resumes after its last seq. */
  close(): void {
    clearTimeout(this.#closeTimer);
    this.#closeTimer = undefined;
    const live = this.#live;
    if (!live) return;
    this.#live = undefined;
    live.close();
    this.#changed();
  }

  #open(): void {
    // Where the first opening starts is the caller's choice; every later one resumes after what the state holds.
    const { afterSeq, ...options } = this.options;
    const live = this.client.openSpace(this.spaceId, { ...options, state: this.state, ...(!this.#opened && afterSeq !== undefined && { afterSeq }) });
    this.#opened = true;
    this.#live = live;
    this.#status = live.status;
    live.on("change", (_state, event) => {
      if (event && isMembershipEvent(event)) void this.#readMembers();
      this.#changed();
    });
    live.on("status", ({ status, error }) => {
      if (this.#live !== live) return;
      this.#status = status;
      if (error || status === "open") this.#error = error;
      this.#changed();
    });
    void this.#readMembers();
    this.#changed();
  }

  async #readMembers(): Promise<void> {
    const read = ++this.#membersRead;
    try {
      const { members } = await this.client.spaces.members(this.spaceId);
      // An older read that answers after a newer one is dropped.
      if (read !== this.#membersRead) return;
      this.#members = members;
      for (const listener of [...this.#memberListeners]) listener();
      this.#changed();
    } catch {
      // The timeline goes on without names; the stream reports access problems itself.
    }
  }

  #changed(): void {
    this.#snapshot = undefined;
    for (const listener of [...this.#listeners]) listener();
    this.onChange(this);
  }
}

function isMembershipEvent(event: SpaceEvent): boolean {
  return event.type === "space.member.joined" || event.type === "space.member.left";
}
