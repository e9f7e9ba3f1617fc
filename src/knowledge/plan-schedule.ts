/**
 * When a plan runs next: once at `runAt`, on a `cron` expression (croner,
 * UTC), or every `everySeconds`. Pure, so it is tested directly.
 */
import { Cron } from "croner";

export type PlanTiming = { runAt?: string | null; cron?: string | null; everySeconds?: number | null };

/** Checks a cron expression; returns an error message or undefined. */
export function checkCron(expression: string): string | undefined {
  try {
    const cron = new Cron(expression, { paused: true, timezone: "UTC" });
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
    const at = Date.parse(timing.runAt);
    if (lastRunAt && Date.parse(lastRunAt) >= at) return null;
    return at;
  }
  if (timing.cron) {
    const next = new Cron(timing.cron, { paused: true, timezone: "UTC" }).nextRun(new Date(after));
    return next ? next.getTime() : null;
  }
  if (timing.everySeconds) return after + timing.everySeconds * 1000;
  return null;
}
