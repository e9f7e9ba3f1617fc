/**
 * The `time` group (system tools, on Workers): the time in a zone,
 * date arithmetic in a zone's calendar, and `sleep`, which never holds the
 * cycle: it arms a wake-up in the agent's alarm table and the cycle ends;
 * when it is due, a `tool_result` event for the sleep call wakes the agent.
 */
import { z } from "@hono/zod-openapi";
import { tool, zodSchema } from "ai";
import type { JournalAccess, RunIdentity, RuntimeAccess, StreamAccess } from "../engine/tool-context";
import { failed, succeeded } from "../engine/tool-outcome";
import { checkTimeZone, describeInstant, instantOf, parseInstant, wallTimeOf } from "./zoned-time";

/** The longest sleep: past a day, a plan (`set_plans`) says it better. */
export const maxSleepSeconds = 86_400;

const TimeZone = z.string().min(1).max(64).optional().describe('IANA time zone such as "Europe/Paris" (default UTC)');
const DateText = z.string().min(4).max(64);

const schemas = {
  currentTime: zodSchema(z.object({ timezone: TimeZone })),
  dateAdd: zodSchema(
    z.object({
      date: DateText.optional().describe("ISO date or date-time (default now); without an offset it is wall-clock time in the time zone"),
      timezone: TimeZone,
      years: z.number().int().min(-10_000).max(10_000).optional(),
      months: z.number().int().min(-120_000).max(120_000).optional(),
      weeks: z.number().int().min(-520_000).max(520_000).optional(),
      days: z.number().int().min(-3_650_000).max(3_650_000).optional(),
      hours: z.number().min(-87_600_000).max(87_600_000).optional(),
      minutes: z.number().min(-5_256_000_000).max(5_256_000_000).optional(),
      seconds: z.number().min(-315_360_000_000).max(315_360_000_000).optional(),
    }),
  ),
  dateDiff: zodSchema(z.object({ from: DateText, to: DateText.optional().describe("Default now"), timezone: TimeZone })),
  sleep: zodSchema(
    z.object({
      seconds: z.number().int().min(1).max(maxSleepSeconds).optional().describe(`How long to sleep, 1 to ${maxSleepSeconds} seconds`),
      duration: z.number().int().min(1).max(maxSleepSeconds).optional().describe("The same as seconds (give one of them)"),
      reason: z.string().max(500).optional().describe("Shown to you when you wake"),
    }),
  ),
};

const maxInstant = 8.64e15;

function zoneOf(timezone: string | undefined): { ok: true; zone: string } | { ok: false; error: string } {
  if (timezone === undefined) return { ok: true, zone: "UTC" };
  const zone = checkTimeZone(timezone);
  return zone ? { ok: true, zone } : { ok: false, error: `Unknown time zone "${timezone}" (use an IANA name such as "America/New_York")` };
}

function humanDuration(milliseconds: number): string {
  const units: [string, number][] = [
    ["day", 86_400_000],
    ["hour", 3_600_000],
    ["minute", 60_000],
    ["second", 1_000],
  ];
  let rest = Math.abs(milliseconds);
  const words: string[] = [];
  for (const [name, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) words.push(`${count} ${name}${count === 1 ? "" : "s"}`);
    rest -= count * size;
  }
  return `${milliseconds < 0 ? "-" : ""}${words.join(" ") || "0 seconds"}`;
}

export function createTimeTools(context: RunIdentity & JournalAccess & StreamAccess & RuntimeAccess) {
  return {
    current_time: tool({
      description: "The current date and time, in a time zone (default UTC).",
      inputSchema: schemas.currentTime,
      execute: async ({ timezone }) => {
        const zone = zoneOf(timezone);
        // `timezone` beside `timeZone`: the catalogue's {timestamp, iso, timezone}.
        return zone.ok ? succeeded({ ...describeInstant(Date.now(), zone.zone), timezone: zone.zone }) : failed(zone.error);
      },
    }),

    date_add: tool({
      description:
        "Date arithmetic: add (or subtract, with negative numbers) years, months, weeks and days on the calendar of a time zone, then hours, minutes and seconds of elapsed time.",
      inputSchema: schemas.dateAdd,
      execute: async (input) => {
        const zone = zoneOf(input.timezone);
        if (!zone.ok) return failed(zone.error);
        const start = input.date === undefined ? Date.now() : parseInstant(input.date, zone.zone);
        if (start === undefined) return failed(`Cannot read the date "${input.date}": give ISO 8601, e.g. 2026-03-01 or 2026-03-01T09:30:00+01:00`);
        const wall = wallTimeOf(start, zone.zone);
        const year = wall.year + (input.years ?? 0);
        const month = wall.month + (input.months ?? 0);
        // A month that is shorter keeps its last day (Jan 31 + 1 month = Feb 28/29).
        const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
        const day = Math.min(wall.day, lastDay) + (input.weeks ?? 0) * 7 + (input.days ?? 0);
        const calendar = instantOf({ ...wall, year, month, day }, zone.zone);
        const result = calendar + ((input.hours ?? 0) * 3_600 + (input.minutes ?? 0) * 60 + (input.seconds ?? 0)) * 1_000;
        if (!Number.isFinite(result) || Math.abs(result) > maxInstant) return failed("The result is outside the dates that can be represented");
        return succeeded({ from: describeInstant(start, zone.zone).local, ...describeInstant(Math.round(result), zone.zone) });
      },
    }),

    date_diff: tool({
      description: "The time between two dates (to defaults to now): exact elapsed time, and calendar days in a time zone.",
      inputSchema: schemas.dateDiff,
      execute: async (input) => {
        const zone = zoneOf(input.timezone);
        if (!zone.ok) return failed(zone.error);
        const from = parseInstant(input.from, zone.zone);
        const to = input.to === undefined ? Date.now() : parseInstant(input.to, zone.zone);
        if (from === undefined || to === undefined) return failed("Cannot read a date: give ISO 8601, e.g. 2026-03-01 or 2026-03-01T09:30:00Z");
        const milliseconds = to - from;
        const wallFrom = wallTimeOf(from, zone.zone);
        const wallTo = wallTimeOf(to, zone.zone);
        const calendarDays = Math.round((Date.UTC(wallTo.year, wallTo.month - 1, wallTo.day) - Date.UTC(wallFrom.year, wallFrom.month - 1, wallFrom.day)) / 86_400_000);
        return succeeded({
          milliseconds,
          seconds: milliseconds / 1_000,
          minutes: milliseconds / 60_000,
          hours: milliseconds / 3_600_000,
          days: milliseconds / 86_400_000,
          calendarDays,
          human: humanDuration(milliseconds),
          timeZone: zone.zone,
        });
      },
    }),

    sleep: tool({
      description: `Sleep without holding anything: this cycle ends, and after the delay a tool_result event for this call wakes you (at most ${maxSleepSeconds} seconds; for later or repeated wake-ups use set_plans).`,
      inputSchema: schemas.sleep,
      execute: async ({ seconds: given, duration, reason }, { toolCallId: modelToolCallId }) => {
        if (given !== undefined && duration !== undefined && given !== duration) return failed("Give seconds or duration, not two different lengths");
        const seconds = given ?? duration;
        if (seconds === undefined) return failed("Give seconds (or duration): how long to sleep");
        const toolCallId = context.callIds.idFor(modelToolCallId);
        // Measured from when the call first started, so a call done again after a restart keeps its time.
        const since = context.journal.previous(toolCallId)?.startedAt ?? Date.now();
        const dueAt = since + seconds * 1_000;
        context.toolRuntime.deadlines.wakeLater({
          eventId: `evt_sleep_${toolCallId}`,
          dueAt,
          toolCallId,
          toolName: "sleep",
          runId: context.runId,
          result: { slept: seconds, since: new Date(since).toISOString(), ...(reason !== undefined && { reason }) },
          hop: context.hop,
        });
        context.publish("agent.sleeping", { runId: context.runId, toolCallId, until: new Date(dueAt).toISOString(), ...(reason !== undefined && { reason }) });
        return succeeded({ sleepingUntil: new Date(dueAt).toISOString(), wakesWith: "a tool_result event for this call; this cycle ends now" });
      },
    }),
  };
}
