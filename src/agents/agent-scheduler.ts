/**
 * The one owner of an agent object's alarm, and of "a cycle is running".
 *
 * The alarm is the object's only durable wake-up: it is multiplexed over the
 * deadline table and the moment a cycle is owed (`nextAlarmAt`), and while a
 * cycle runs it is a heartbeat a few seconds ahead, so that if the object
 * dies the runtime wakes a fresh instance, which continues the cycle from its
 * journal. This class is the only code that writes it.
 *
 * Cycles run one at a time under a lease (like a `keepAliveWhile`): the lease
 * is the promise of the running cycle loop; whoever wants a cycle while one
 * runs joins it, and the loop itself looks for more owed work before it ends.
 * Every way into a cycle — an event, a result for the inbox, the alarm,
 * recovery after a restart, an operator's abort, a sleep or plan wake-up —
 * goes through `owe()` (or, for the alarm, `alarm()`), nothing else.
 *
 * A cycle is held by the alarm's handler (the runtime keeps the object alive
 * while it runs and retries it if the object dies). When an event arrives and
 * the alarm has nothing to do first (no run to continue, no staged outcome,
 * no deadline due), the cycle starts at once instead of a few milliseconds
 * later when the alarm fires; the alarm, set to now, then joins it. Until it
 * has joined, the heartbeat keeps the alarm at now rather than ahead: moving
 * a pending alarm later cancels its run, which would leave the cycle outside
 * any handler.
 */
import { nextAlarmAt } from "./next-alarm-at";

/** While a cycle runs, the alarm is kept this far ahead, renewed every `heartbeatEveryMs`. */
export const heartbeatAheadMs = 10_000;
export const heartbeatEveryMs = 3_000;

export type AlarmStore = {
  getAlarm(): Promise<number | null>;
  setAlarm(at: number): Promise<void>;
  deleteAlarm(): Promise<void>;
};

/** What the object owes, read from its storage each time it is asked. */
export type OwedWork = {
  /** The earliest deadline in the deadline table. */
  earliestDeadline: number | undefined;
  /** When the next cycle may start: a run's next attempt, the next ready event (after a throttle). */
  nextCycleAt: number | undefined;
  /** Outcomes staged by a transition a crash may have cut short: the alarm reconciles them at once. */
  staged: boolean;
};

export type SchedulerClock = {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  setInterval(run: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
};

const realClock: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  setInterval: (run, ms) => setInterval(run, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

export class AgentScheduler {
  readonly #alarms: AlarmStore;
  readonly #owed: () => OwedWork;
  readonly #alarmFirst: () => boolean;
  readonly #runCycles: () => Promise<void>;
  readonly #clock: SchedulerClock;
  readonly #onError: (what: string, error: unknown) => void;
  /** The lease: the running cycle loop (or held work), while it runs. */
  #lease: Promise<void> | undefined;
  /** What holds the lease: the cycle loop (which looks for more work before it ends) or other work. */
  #holder: "cycles" | "work" | undefined;
  /** The alarm as this object last wrote it (it is the only writer); undefined: not known, read it. */
  #alarmAt: number | null | undefined;
  /** An alarm handler is running (it holds whatever lease there is). */
  #inAlarm = false;
  #heartbeat: unknown;

  constructor(deps: {
    alarms: AlarmStore;
    owed(): OwedWork;
    /** Whether the alarm's handler has work to do before a cycle (a run to continue, staged outcomes, a deadline due now). */
    alarmFirst(): boolean;
    /** Runs cycles one after another until none is owed now (called only under the lease). */
    runCycles(): Promise<void>;
    clock?: SchedulerClock;
    onError?(what: string, error: unknown): void;
  }) {
    this.#alarms = deps.alarms;
    this.#owed = deps.owed;
    this.#alarmFirst = deps.alarmFirst;
    this.#runCycles = deps.runCycles;
    this.#clock = deps.clock ?? realClock;
    this.#onError = deps.onError ?? ((what, error) => console.error(what, error));
  }

  /** A cycle (or an operator's held work) is running. */
  get cycleRunning(): boolean {
    return this.#lease !== undefined;
  }

  /**
   * A cycle may be owed now (an event reached the inbox, a result went to it,
   * a wake-up is due): the alarm holds it, and when the alarm has nothing to
   * do first the cycle starts at once, after the caller is answered.
   */
  async owe(): Promise<void> {
    if (this.#lease) return; // the running loop looks for more work before it ends
    await this.#write(this.#clock.now());
    if (this.#alarmFirst()) return;
    this.#clock.setTimeout(() => {
      if (this.#lease || this.#inAlarm) return;
      this.#acquire("cycles", () => this.#runCycles()).catch((error: unknown) => this.#onError("a cycle started at once failed; the alarm runs it again", error));
    }, 0);
  }

  /**
   * The alarm's handler: `first` (reconcile staged outcomes, process due
   * deadlines), then the owed cycles; a cycle already running is joined and
   * held from here on. The alarm is set again from what is owed at the end.
   */
  async alarm(first: () => Promise<void>): Promise<void> {
    this.#inAlarm = true;
    // The alarm that fired is spent: what is set now is read again.
    this.#alarmAt = undefined;
    // A cycle that started at once is held from now on: its heartbeat goes ahead at once.
    if (this.#lease) await this.#write(this.#heartbeatAt());
    try {
      await first();
      // A cycle loop already running is joined (it looks for more work itself); held work is waited out first.
      if (this.#holder === "cycles") await this.#lease;
      else {
        await this.#lease;
        await this.#acquire("cycles", () => this.#runCycles());
      }
    } finally {
      this.#inAlarm = false;
      await this.schedule();
    }
  }

  /**
   * Runs `work` under the lease, so no cycle starts meanwhile (an operator
   * failing a run that waits to retry). Undefined when a cycle holds it.
   */
  async hold<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (this.#lease) return undefined;
    let result: T | undefined;
    await this.#acquire("work", async () => {
      result = await work();
    });
    return result;
  }

  /**
   * Sets the alarm from what is owed now: the only place it is computed.
   * `earlierOnly` (a fresh instance, before its first handler runs): the
   * alarm only moves earlier, so an alarm about to fire keeps its run.
   */
  async schedule(options: { earlierOnly?: boolean } = {}): Promise<void> {
    const owed = this.#owed();
    const now = this.#clock.now();
    const at = nextAlarmAt({
      now,
      earliestDeadline: owed.staged ? Math.min(now, owed.earliestDeadline ?? Infinity) : owed.earliestDeadline,
      nextCycleAt: owed.nextCycleAt,
      cycleRunning: this.#lease !== undefined,
      heartbeatAt: this.#heartbeatAt(),
    });
    if (options.earlierOnly) {
      const current = this.#alarmAt === undefined ? await this.#alarms.getAlarm() : this.#alarmAt;
      this.#alarmAt = current;
      if (at === undefined || (current !== null && current <= at)) return;
    }
    await this.#write(at);
  }

  /** The agent was deleted: no alarm, no heartbeat (a running cycle is stopped by its owner). */
  async clear(): Promise<void> {
    this.#stopHeartbeat();
    this.#alarmAt = null;
    await this.#alarms.deleteAlarm();
  }

  async #acquire(holder: "cycles" | "work", work: () => Promise<void>): Promise<void> {
    if (this.#lease) return this.#lease;
    this.#holder = holder;
    const lease = (async () => {
      this.#startHeartbeat();
      try {
        await work();
      } finally {
        this.#stopHeartbeat();
      }
    })();
    this.#lease = lease.finally(() => {
      this.#lease = undefined;
      this.#holder = undefined;
    });
    try {
      await this.#lease;
    } finally {
      // Not from inside the alarm's handler: it schedules once, when it ends.
      if (!this.#inAlarm) await this.schedule().catch((error: unknown) => this.#onError("could not set the agent's alarm", error));
    }
  }

  /**
   * Where the heartbeat puts the alarm: ahead of now while the alarm's handler
   * holds the cycle; now while a cycle that started at once is not held yet.
   */
  #heartbeatAt(): number {
    return this.#inAlarm ? this.#clock.now() + heartbeatAheadMs : this.#clock.now();
  }

  #startHeartbeat(): void {
    const beat = () => void this.#write(this.#heartbeatAt()).catch((error: unknown) => this.#onError("the heartbeat could not set the alarm", error));
    // The first beat at once when the alarm's handler holds the cycle; otherwise the alarm set to now stays until it joins.
    if (this.#inAlarm) beat();
    this.#heartbeat = this.#clock.setInterval(beat, heartbeatEveryMs);
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== undefined) this.#clock.clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  /** The one write of the alarm: set it (unchanged is left alone), or delete it. */
  async #write(at: number | undefined): Promise<void> {
    const current = this.#alarmAt === undefined ? await this.#alarms.getAlarm() : this.#alarmAt;
    if (at === undefined) {
      if (current !== null) await this.#alarms.deleteAlarm();
      this.#alarmAt = null;
    } else {
      if (current !== at) await this.#alarms.setAlarm(at);
      this.#alarmAt = at;
    }
  }
}
