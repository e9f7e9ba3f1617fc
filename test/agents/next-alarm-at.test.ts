import { describe, expect, it } from "vitest";
import { nextAlarmAt } from "../../src/agents/next-alarm-at";

describe("the agent object's one alarm", () => {
  const now = 1_000_000;
  const base = { now, earliestDeadline: undefined, nextReadyAt: undefined, cycleRunning: false, watchdogAt: undefined };

  it("is off when nothing is owed", () => {
    expect(nextAlarmAt(base)).toBeUndefined();
  });

  it("takes the earliest of a deadline and an event leaving backoff, never in the past", () => {
    expect(nextAlarmAt({ ...base, earliestDeadline: now + 500, nextReadyAt: now + 200 })).toBe(now + 200);
    expect(nextAlarmAt({ ...base, nextReadyAt: now - 50 })).toBe(now);
  });

  it("while a cycle runs, watches it instead of waking for ready events (the running loop takes them)", () => {
    expect(nextAlarmAt({ ...base, cycleRunning: true, nextReadyAt: now, watchdogAt: now + 60_000 })).toBe(now + 60_000);
    expect(nextAlarmAt({ ...base, cycleRunning: true, earliestDeadline: now + 10, watchdogAt: now + 60_000 })).toBe(now + 10);
  });

  it("ignores invalid times rather than setting an invalid alarm", () => {
    expect(nextAlarmAt({ ...base, cycleRunning: true, watchdogAt: Number.NaN })).toBeUndefined();
  });
});
