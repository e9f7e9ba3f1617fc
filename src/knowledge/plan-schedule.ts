/**
 * When a plan runs next: once at `runAt`, on a `cron` expression (croner),
 * or every `everySeconds`. A `timezone` (IANA, default UTC) is where the cron
 * and a `runAt` without an offset are read: a daily 09:00 stays 09:00 there
 * across daylight-saving changes; a time the clock skips runs when the clock
 * jumps (02:30 on a spring-forward day runs at 03:00), a time it repeats runs
 * once, the first time. Pure, so it is tested directly.
 */
import { Cron } from "croner";

export type PlanTiming = { runAt?: string | null; cron?: string | null; everySeconds?: number | null; timezone?: string | null };

/** Checks an IANA time zone name; returns an error message or undefined. */
export function checkTimezone(timezone: string): string | undefined {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return undefined;
  } catch {
    return `Unknown time zone "${timezone}": give an IANA name such as Europe/Paris or America/New_York`;
  }
}

/** A `runAt` as a moment: with an offset (or Z) it is one already; without, it is a wall-clock time in `timezone`. */
export function runAtMoment(runAt: string, timezone: string | null | undefined): number {
  if (/(?:Z|[+-]\d{2}:?\d{2})$/i.test(runAt)) return Date.parse(runAt);
  // A one-shot cron at that wall-clock minute finds it in the zone, daylight saving included.
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(runAt);
  if (!match) return Number.NaN;
  const [, year, month, day, hour, minute] = match;
  const next = new Cron(`${Number(minute)} ${Number(hour)} ${Number(day)} ${Number(month)} *`, { paused: true, timezone: timezone ?? "UTC" }).nextRun(
    new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)) - 2 * 86_400_000),
  );
  return next ? next.getTime() : Number.NaN;
}

/** Checks a cron expression; returns an error message or undefined. */
export function checkCron(expression: string, timezone = "UTC"): string | undefined {
  try {
    const cron = new Cron(expression, { paused: true, timezone });
    if (cron.nextRun() === null) return `The cron expression "${expression}" never runs`;
    return undefined;
  } catch (error) {
    return `Invalid cron expression "${expression}": ${(error as Error).message}`;
  }
}

/**
 * The next run strictly after `after` (ms), or null when the plan is done
 * (a one-shot `runAt` that has run). `lastRunAt` lets one-shot plans finish.
 */
export function nextRunAt(timing: PlanTiming, after: number, lastRunAt?: string | null): number | null {
  if (timing.runAt) {
    const at = runAtMoment(timing.runAt, timing.timezone);
    if (lastRunAt && Date.parse(lastRunAt) >= at) return null;
    return at;
  }
  if (timing.cron) {
    const next = new Cron(timing.cron, { paused: true, timezone: timing.timezone ?? "UTC" }).nextRun(new Date(after));
    return next ? next.getTime() : null;
  }
  if (timing.everySeconds) return after + timing.everySeconds * 1000;
  return null;
}
