import { describe, expect, it } from "vitest";
import { checkCron, checkTimezone, nextRunAt, runAtMoment } from "../../src/knowledge/plan-schedule";

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

  describe("time zones and daylight saving", () => {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    const runs = (timing: { cron: string; timezone: string }, from: string, count: number) => {
      const out: (string | null)[] = [];
      let after = Date.parse(from);
      for (let index = 0; index < count; index += 1) {
        const next = nextRunAt(timing, after);
        out.push(iso(next));
        after = next ?? after;
      }
      return out;
    };

    it("a daily 09:00 stays 09:00 local across the spring-forward change (New York, 14 March 2027)", () => {
      expect(runs({ cron: "0 9 * * *", timezone: "America/New_York" }, "2027-03-12T20:00:00Z", 3)).toEqual([
        "2027-03-13T14:00:00.000Z",
        "2027-03-14T13:00:00.000Z",
        "2027-03-15T13:00:00.000Z",
      ]);
    });

    it("a daily 09:00 stays 09:00 local across the fall-back change (New York, 1 November 2026)", () => {
      expect(runs({ cron: "0 9 * * *", timezone: "America/New_York" }, "2026-10-30T20:00:00Z", 3)).toEqual([
        "2026-10-31T13:00:00.000Z",
        "2026-11-01T14:00:00.000Z",
        "2026-11-02T14:00:00.000Z",
      ]);
    });

    it("a time the clock skips runs when it jumps; a time it repeats runs once", () => {
      expect(runs({ cron: "30 2 * * *", timezone: "America/New_York" }, "2027-03-13T12:00:00Z", 2)).toEqual(["2027-03-14T07:00:00.000Z", "2027-03-15T06:30:00.000Z"]);
      expect(runs({ cron: "30 1 * * *", timezone: "America/New_York" }, "2026-10-31T12:00:00Z", 2)).toEqual(["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]);
    });

    it("a runAt without an offset is a wall-clock time in the plan's zone; with one, it is that moment", () => {
      expect(iso(runAtMoment("2026-11-22T09:00:00", "Europe/Paris"))).toBe("2026-11-22T08:00:00.000Z");
      expect(iso(runAtMoment("2026-07-22T09:00:00", "Europe/Paris"))).toBe("2026-07-22T07:00:00.000Z");
      expect(iso(runAtMoment("2026-11-22T09:00:00", undefined))).toBe("2026-11-22T09:00:00.000Z");
      expect(iso(runAtMoment("2026-11-22T09:00:00+05:00", "Europe/Paris"))).toBe("2026-11-22T04:00:00.000Z");
      expect(iso(runAtMoment("2027-03-14T02:30:00", "America/New_York"))).toBe("2027-03-14T07:00:00.000Z");
    });

    it("refuses unknown zones", () => {
      expect(checkTimezone("Mars/Olympus_Mons")).toMatch(/Unknown time zone/);
      expect(checkTimezone("Asia/Tokyo")).toBeUndefined();
    });
  });
});
