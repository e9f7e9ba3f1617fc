import { describe, expect, it } from "vitest";
import { nextAlarmAt } from "../../src/agents/next-alarm-at";

describe("the agent object's one alarm", () => {
  const now = 1_000_000;
  const base = { now, earliestDeadline: undefined, nextCycleAt: undefined, cycleRunning: false, heartbeatAt: now + 15_000 };

  it("is off when nothing is owed", () => {
    expect(nextAlarmAt(base)).toBeUndefined();
  });

  it("takes the earliest of a deadline and an owed cycle, never in the past", () => {
    expect(nextAlarmAt({ ...base, earliestDeadline: now + 500, nextCycleAt: now + 200 })).toBe(now + 200);
    expect(nextAlarmAt({ ...base, earliestDeadline: now + 100, nextCycleAt: now + 200 })).toBe(now + 100);
    expect(nextAlarmAt({ ...base, nextCycleAt: now - 50 })).toBe(now);
  });

  it("while a cycle runs, is the heartbeat (it can only fire if the instance died)", () => {
    expect(nextAlarmAt({ ...base, cycleRunning: true, nextCycleAt: now, earliestDeadline: now + 10 })).toBe(now + 15_000);
  });

  it("ignores invalid times rather than setting an invalid alarm", () => {
    expect(nextAlarmAt({ ...base, earliestDeadline: Number.NaN, nextCycleAt: Number.POSITIVE_INFINITY })).toBeUndefined();
    expect(nextAlarmAt({ ...base, cycleRunning: true, heartbeatAt: Number.NaN })).toBeUndefined();
  });
});
