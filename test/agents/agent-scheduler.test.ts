/**
 * The agent object's scheduler, driven through random interleavings of
 * events, delayed events, deadlines, staged outcomes, alarms, the passing of
 * time and restarts (the object aborted: its memory and timers gone, its
 * storage and alarm kept), against a simulated runtime: one alarm that fires
 * when due and never while its handler runs, a clock, and timers. After every
 * step it checks the scheduler's invariants:
 *
 * - exactly one cycle at a time;
 * - while nothing runs, the alarm is set and no later than the earliest
 *   owed work (a ready event, a deadline, a staged outcome); while a cycle
 *   runs, the alarm is a heartbeat no more than its lead ahead;
 * - nothing owed is forgotten: after the last step and enough time, every
 *   event was worked on exactly once and nothing is left owed.
 */
import { describe, expect, it } from "vitest";
import { AgentScheduler, heartbeatAheadMs, type SchedulerClock } from "../../src/agents/agent-scheduler";

type Timer = { at: number; order: number; run: () => void; every?: number; id: number };

/** A seeded random source (mulberry32), so a failure names a seed that replays it. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (below: number) => Math.floor(next() * below) };
}

const settle = async () => {
  for (let round = 0; round < 30; round += 1) await Promise.resolve();
};

class World {
  now = 1_000_000;
  alarm: number | null = null;
  handlerRunning = false;
  timers: Timer[] = [];
  order = 0;
  nextTimerId = 1;
  /** Durable: the inbox, the deadline table, staged outcomes. */
  inbox: { id: number; readyAt: number }[] = [];
  deadlines: { id: number; dueAt: number }[] = [];
  staged = 0;
  /** What was worked on, in order (an event counts once its cycle completed). */
  worked: number[] = [];
  delivered = 0;
  cyclesRunning = 0;
  maxCyclesRunning = 0;
  scheduler!: AgentScheduler;
  problems: string[] = [];

  constructor(readonly random: ReturnType<typeof randomSource>) {
    this.start();
  }

  clock(): SchedulerClock {
    return {
      now: () => this.now,
      setTimeout: (run, ms) => this.#add(run, ms),
      setInterval: (run, ms) => this.#add(run, ms, ms),
      clearInterval: (handle) => {
        this.timers = this.timers.filter((timer) => timer.id !== handle);
      },
    };
  }

  #add(run: () => void, ms: number, every?: number): number {
    const id = this.nextTimerId++;
    this.timers.push({ at: this.now + Math.max(0, ms), order: this.order++, run, every, id });
    return id;
  }

  /** A fresh instance on the same storage and alarm (its memory and timers are gone). */
  start(): void {
    this.scheduler = new AgentScheduler({
      clock: this.clock(),
      alarms: {
        getAlarm: async () => this.alarm,
        setAlarm: async (at) => void (this.alarm = at),
        deleteAlarm: async () => void (this.alarm = null),
      },
      owed: () => ({ earliestDeadline: this.earliestDeadline(), nextCycleAt: this.nextReadyAt(), staged: this.staged > 0 }),
      alarmFirst: () => this.staged > 0 || (this.earliestDeadline() ?? Infinity) <= this.now,
      runCycles: () => this.cycles(),
      onError: (what, error) => this.problems.push(`${what}: ${String(error)}`),
    });
  }

  earliestDeadline(): number | undefined {
    return this.deadlines.length === 0 ? undefined : Math.min(...this.deadlines.map((deadline) => deadline.dueAt));
  }

  nextReadyAt(): number | undefined {
    return this.inbox.length === 0 ? undefined : Math.min(...this.inbox.map((event) => event.readyAt));
  }

  /** The cycle loop: each cycle takes every ready event, works a while, then completes them. */
  async cycles(): Promise<void> {
    for (;;) {
      const taken = this.inbox.filter((event) => event.readyAt <= this.now);
      if (taken.length === 0) return;
      this.cyclesRunning += 1;
      this.maxCyclesRunning = Math.max(this.maxCyclesRunning, this.cyclesRunning);
      try {
        await new Promise<void>((resolve) => this.#add(resolve, 1 + this.random.int(4_000)));
      } finally {
        this.cyclesRunning -= 1;
      }
      // Done: the events leave the inbox in the same step their work is recorded.
      const ids = new Set(taken.map((event) => event.id));
      this.inbox = this.inbox.filter((event) => !ids.has(event.id));
      this.worked.push(...taken.map((event) => event.id));
    }
  }

  async deliver(delayMs = 0): Promise<void> {
    this.inbox.push({ id: ++this.delivered, readyAt: this.now + delayMs });
    if (delayMs === 0) await this.scheduler.owe();
    else await this.scheduler.schedule();
  }

  /** Lets `ms` pass: timers and the alarm fire in time order. */
  async advance(ms: number): Promise<void> {
    const target = this.now + ms;
    for (;;) {
      await settle();
      const timer = [...this.timers].sort((a, b) => a.at - b.at || a.order - b.order)[0];
      const alarmAt = this.alarm !== null && !this.handlerRunning ? Math.max(this.alarm, this.now) : Infinity;
      const timerAt = timer ? timer.at : Infinity;
      const at = Math.min(alarmAt, timerAt);
      if (at > target) break;
      this.now = Math.max(this.now, at);
      if (timerAt <= alarmAt && timer) {
        this.timers = this.timers.filter((entry) => entry !== timer);
        if (timer.every !== undefined) this.timers.push({ ...timer, at: this.now + timer.every, order: this.order++ });
        timer.run();
      } else this.fireAlarm();
    }
    this.now = target;
    await settle();
  }

  fireAlarm(): void {
    this.alarm = null;
    this.handlerRunning = true;
    const scheduler = this.scheduler;
    void scheduler
      .alarm(async () => {
        // The handler's own work: staged outcomes reconciled, due deadlines done.
        this.staged = 0;
        this.deadlines = this.deadlines.filter((deadline) => deadline.dueAt > this.now);
      })
      .finally(() => {
        if (this.scheduler === scheduler) this.handlerRunning = false;
      });
  }

  /** The object dies: memory and timers are gone; a handler that was running is retried by the runtime. */
  async restart(): Promise<void> {
    this.timers = [];
    this.cyclesRunning = 0;
    if (this.handlerRunning) this.alarm = this.alarm === null ? this.now : Math.min(this.alarm, this.now);
    this.handlerRunning = false;
    this.start();
    if (this.inbox.length > 0 || this.staged > 0 || this.deadlines.length > 0) await this.scheduler.schedule({ earlierOnly: true });
  }

  /** The invariants that hold between any two steps. */
  check(step: string): void {
    if (this.maxCyclesRunning > 1) this.problems.push(`${step}: ${this.maxCyclesRunning} cycles at once`);
    if (this.scheduler.cycleRunning) {
      if (this.alarm === null || this.alarm > this.now + heartbeatAheadMs) this.problems.push(`${step}: a cycle runs but the alarm is ${this.alarm} (now ${this.now})`);
      return;
    }
    if (this.handlerRunning) return;
    const owed = [this.nextReadyAt(), this.earliestDeadline(), this.staged > 0 ? this.now : undefined].filter((value): value is number => value !== undefined);
    if (owed.length === 0) return;
    const due = Math.max(this.now, Math.min(...owed));
    if (this.alarm === null || this.alarm > due) this.problems.push(`${step}: owed at ${due} but the alarm is ${this.alarm} (now ${this.now})`);
  }
}

async function play(seed: number, steps: number): Promise<World> {
  const random = randomSource(seed);
  const world = new World(random);
  for (let step = 0; step < steps; step += 1) {
    const roll = random.int(100);
    let what: string;
    if (roll < 30) {
      what = "deliver";
      await world.deliver();
    } else if (roll < 38) {
      what = "deliver later";
      await world.deliver(1 + random.int(20_000));
    } else if (roll < 46) {
      what = "deadline";
      world.deadlines.push({ id: step, dueAt: world.now + random.int(30_000) });
      await world.scheduler.schedule();
    } else if (roll < 52) {
      what = "staged outcome";
      world.staged += 1;
      await world.scheduler.schedule();
    } else if (roll < 58) {
      what = "restart";
      await world.restart();
    } else {
      what = "time passes";
      await world.advance(random.int(roll < 90 ? 500 : 15_000));
    }
    await settle();
    world.check(`seed ${seed}, step ${step} (${what})`);
  }
  // Long enough for every retry, backoff and delayed event: all that is owed gets done.
  for (let round = 0; round < 20; round += 1) await world.advance(10_000);
  return world;
}

describe("the agent scheduler under random interleavings", () => {
  it.each(Array.from({ length: 40 }, (_, index) => 1_000 + index))("seed %i: one cycle at a time, the alarm never late, nothing owed forgotten", async (seed) => {
    const world = await play(seed, 150);
    expect(world.problems).toEqual([]);
    expect(world.maxCyclesRunning).toBe(1);
    expect({ inbox: world.inbox, deadlines: world.deadlines, staged: world.staged }).toEqual({ inbox: [], deadlines: [], staged: 0 });
    // Every event worked on exactly once (a cycle cut short by a restart completes nothing; its events stay in the inbox).
    expect([...world.worked].sort((a, b) => a - b)).toEqual(Array.from({ length: world.delivered }, (_, index) => index + 1));
  });

  it("an event delivered while the object is idle starts its cycle at once, before the alarm fires", async () => {
    const world = new World(randomSource(7));
    await world.deliver();
    // Only the zero-delay timer has run: the alarm (set to now) has not fired yet.
    const start = [...world.timers].sort((a, b) => a.at - b.at)[0];
    expect(start?.at).toBe(world.now);
    world.timers = world.timers.filter((timer) => timer !== start);
    start.run();
    await settle();
    expect(world.scheduler.cycleRunning).toBe(true);
    expect(world.alarm).toBe(world.now);
    // The alarm fires, joins the running cycle and moves the heartbeat ahead.
    world.fireAlarm();
    await settle();
    expect(world.alarm).toBe(world.now + heartbeatAheadMs);
    await world.advance(30_000);
    expect(world.worked).toEqual([1]);
    expect(world.alarm).toBeNull();
  });

  it("a deadline due now sends the event's cycle through the alarm's handler first", async () => {
    const world = new World(randomSource(9));
    world.deadlines.push({ id: 1, dueAt: world.now });
    await world.deliver();
    expect(world.timers).toEqual([]);
    expect(world.alarm).toBe(world.now);
    await world.advance(30_000);
    expect({ worked: world.worked, deadlines: world.deadlines }).toEqual({ worked: [1], deadlines: [] });
  });

  it("held work keeps cycles out; the alarm runs the owed cycle after it", async () => {
    const world = new World(randomSource(11));
    let release: () => void = () => undefined;
    const held = world.scheduler.hold(() => new Promise<string>((resolve) => (release = () => resolve("done"))));
    await settle();
    await world.deliver();
    expect(world.scheduler.cycleRunning).toBe(true);
    expect(await world.scheduler.hold(async () => "second")).toBeUndefined();
    release();
    expect(await held).toBe("done");
    await world.advance(30_000);
    expect(world.worked).toEqual([1]);
  });
});
