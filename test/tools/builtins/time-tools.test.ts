import { describe, expect, it } from "vitest";
import { createTimeTools } from "../../../src/tools/builtins/time-tools";
import { describeInstant, instantOf, parseInstant } from "../../../src/tools/builtins/zoned-time";
import { agentState, settledRuns, waitForRuns } from "../../support/agents";
import { callTool, catalogueAgent, errorOf, okValue, toolContext } from "../../support/catalogue";

const time = createTimeTools(toolContext());

describe("time tools", () => {
  it("current_time in a time zone: ISO, local wall clock with offset, weekday", async () => {
    const before = Date.now();
    const now = okValue<{ iso: string; timestamp: number; local: string; timeZone: string; offset: string; weekday: string }>(
      await callTool(time, "current_time", { timezone: "Asia/Kolkata" }),
    );
    expect(now.timestamp).toBeGreaterThanOrEqual(before);
    expect(now.timeZone).toBe("Asia/Kolkata");
    expect(now.offset).toBe("+05:30");
    expect(now.local.endsWith("+05:30")).toBe(true);
    expect(okValue(await callTool(time, "current_time", {}))).toMatchObject({ timeZone: "UTC", offset: "+00:00" });
    // The catalogue's field names, beside today's.
    expect(okValue(await callTool(time, "current_time", { timezone: "Europe/Berlin" }))).toMatchObject({ timezone: "Europe/Berlin", timestamp: expect.any(Number) });
    expect(errorOf(await callTool(time, "current_time", { timezone: "Mars/Olympus" }))).toContain('Unknown time zone "Mars/Olympus"');
  });

  it("date_add works on the zone's calendar: month ends, leap years, DST, negative amounts", async () => {
    expect(okValue(await callTool(time, "date_add", { date: "2026-01-31", months: 1 }))).toMatchObject({ date: "2026-02-28" });
    expect(okValue(await callTool(time, "date_add", { date: "2028-01-31", months: 1 }))).toMatchObject({ date: "2028-02-29" });
    expect(okValue(await callTool(time, "date_add", { date: "2026-03-01T12:00:00Z", days: -1, hours: 2 }))).toMatchObject({ iso: "2026-02-28T14:00:00.000Z" });
    // Across the spring-forward in Paris: one calendar day later is the same wall-clock time, 23 hours on.
    const dst = okValue<{ iso: string; local: string }>(await callTool(time, "date_add", { date: "2026-03-28T12:00:00", timezone: "Europe/Paris", days: 1 }));
    expect(dst.local).toBe("2026-03-29T12:00:00+02:00");
    expect(dst.iso).toBe("2026-03-29T10:00:00.000Z");
    expect(okValue(await callTool(time, "date_add", { date: "2026-03-28T12:00:00", timezone: "Europe/Paris", hours: 24 }))).toMatchObject({ local: "2026-03-29T13:00:00+02:00" });
    expect(errorOf(await callTool(time, "date_add", { date: "next tuesday", days: 1 }))).toContain("Cannot read the date");
  });

  it("date_diff: exact elapsed time and calendar days in a zone", async () => {
    expect(okValue(await callTool(time, "date_diff", { from: "2026-01-01T00:00:00Z", to: "2026-01-02T06:30:00Z" }))).toMatchObject({
      hours: 30.5,
      days: 1.2708333333333333,
      calendarDays: 1,
      human: "1 day 6 hours 30 minutes",
    });
    expect(okValue(await callTool(time, "date_diff", { from: "2026-01-01T23:00:00Z", to: "2026-01-02T01:00:00Z", timezone: "America/New_York" }))).toMatchObject({
      hours: 2,
      calendarDays: 0,
    });
    expect(okValue(await callTool(time, "date_diff", { from: "2026-01-02", to: "2026-01-01" }))).toMatchObject({ days: -1, human: "-1 day" });
  });

  it("wall-clock times in a zone round-trip, and a time in the DST gap moves forward", () => {
    const instant = parseInstant("2026-07-04T09:15:00", "America/Los_Angeles");
    expect(new Date(instant ?? 0).toISOString()).toBe("2026-07-04T16:15:00.000Z");
    expect(describeInstant(instant ?? 0, "America/Los_Angeles").local).toBe("2026-07-04T09:15:00-07:00");
    const gap = instantOf({ year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0, millisecond: 0 }, "Europe/Paris");
    expect(describeInstant(gap, "Europe/Paris").local).toBe("2026-03-29T03:30:00+02:00");
    expect(parseInstant("2026-13-01", "UTC")).toBeUndefined();
  });
});

describe("sleep", () => {
  it("ends the cycle at once, and the alarm wakes the agent with a tool_result for the sleep call after the delay", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "time"] }, () => [
      { toolCalls: [{ name: "sleep", args: { duration: 1, reason: "wait for the build" } }] },
      { text: "never reached in the first cycle" },
      { toolCalls: [{ name: "skip", args: {} }] },
    ]);
    await world.wake();
    const [first] = await waitForRuns(world.agent.id, 1);
    expect(first.steps).toHaveLength(1);
    expect(first.toolCalls).toMatchObject([{ toolName: "sleep", status: "completed", result: { sleepingUntil: expect.any(String) } }]);
    const sleepCall = first.toolCalls[0];
    // No route shows the deadline table: read inside the object.
    const { deadlines } = await agentState(world.agent.id);
    expect(deadlines.filter((deadline) => deadline.kind === "sleep")).toEqual([{ id: `sleep:evt_sleep_${sleepCall.toolCallId}`, kind: "sleep", dueAt: expect.any(Number) }]);
    const [, second] = await waitForRuns(world.agent.id, 2, 10_000);
    expect(second.trigger).toMatchObject([
      { id: `evt_sleep_${sleepCall.toolCallId}`, type: "tool_result", toolName: "sleep", toolCallId: sleepCall.toolCallId, result: { slept: 1, reason: "wait for the build" } },
    ]);
    expect(Date.parse(second.trigger[0].receivedAt as string)).toBeGreaterThanOrEqual(Date.parse((sleepCall.result as { sleepingUntil: string }).sleepingUntil) - 5);
    expect(await settledRuns(world.agent.id)).toHaveLength(2);
    expect((await agentState(world.agent.id)).deadlines.filter((deadline) => deadline.kind === "sleep")).toEqual([]);
  });

  it("is bounded: past a day (or under a second) the model gets its own arguments back as an error", async () => {
    const world = await catalogueAgent({ builtins: ["spaces", "time"] }, () => [
      {
        toolCalls: [
          { name: "sleep", args: { seconds: 86_401 } },
          { name: "sleep", args: { seconds: 0 } },
          { name: "sleep", args: {} },
          { name: "sleep", args: { seconds: 5, duration: 6 } },
          { name: "sleep", args: { duration: 86_401 } },
        ],
      },
      { toolCalls: [{ name: "skip", args: {} }] },
    ]);
    await world.wake();
    const [run] = await waitForRuns(world.agent.id, 1);
    expect(run.toolCalls.filter((call) => call.toolName === "sleep").map((call) => call.status)).toEqual(["failed", "failed", "failed", "failed", "failed"]);
    // A failed sleep does not end the cycle: the model went on to skip.
    expect(run.toolCalls.map((call) => call.toolName)).toEqual(["sleep", "sleep", "sleep", "sleep", "sleep", "skip"]);
    expect((await agentState(world.agent.id)).deadlines.filter((deadline) => deadline.kind === "sleep")).toEqual([]);
  });
});
