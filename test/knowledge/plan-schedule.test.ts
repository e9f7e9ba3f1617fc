import { describe, expect, it } from "vitest";
import { checkCron, nextRunAt } from "../../src/knowledge/plan-schedule";

describe("plan schedules", () => {
  const base = Date.parse("2026-11-21T08:00:00Z");

  it("runAt runs once", () => {
    const timing = { runAt: "2026-11-21T10:00:00Z" };
    expect(nextRunAt(timing, base)).toBe(Date.parse("2026-11-21T10:00:00Z"));
    expect(nextRunAt(timing, base, "2026-11-21T10:00:01Z")).toBeNull();
  });

  it("cron runs on its schedule in UTC", () => {
    expect(new Date(nextRunAt({ cron: "0 9 * * *" }, base) ?? 0).toISOString()).toBe("2026-11-21T09:00:00.000Z");
    expect(new Date(nextRunAt({ cron: "0 9 * * *" }, Date.parse("2026-11-21T09:00:00Z")) ?? 0).toISOString()).toBe("2026-11-22T09:00:00.000Z");
  });

  it("everySeconds runs every N seconds after the last run", () => {
    expect(nextRunAt({ everySeconds: 60 }, base)).toBe(base + 60_000);
  });

  it("refuses invalid cron expressions", () => {
    expect(checkCron("not a cron")).toMatch(/Invalid cron/);
    expect(checkCron("*/5 * * * *")).toBeUndefined();
  });
});
