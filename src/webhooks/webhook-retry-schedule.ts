/**
 * When a failed push is tried again, and when it is given up. Two schedules:
 *
 * - a pushed tool call (`execution.webhook`) is tried until the call settles
 *   or its deadline passes (the call's `expiresAt`, or a day after its first
 *   attempt when it has none): 1 s, doubling, at most 5 minutes apart;
 * - a subscription's event follows the Standard Webhooks senders' schedule:
 *   at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later (about
 *   28 hours in all); after the eighth attempt it is dead-lettered.
 *
 * Every wait is jittered (±20%), so the retries of many deliveries to a
 * receiver that comes back do not all arrive in the same second.
 * Pure functions, tested directly; the sender takes them as a dependency so
 * a test can put shorter ones in.
 */

/** How far a wait is spread either way: ±20%. */
export const jitterFraction = 0.2;

/** A pushed call's waits double from 1 s up to this cap. */
export const pushedCallBackoffCapMs = 5 * 60_000;

/** How long a pushed call without `expiresAt` is pushed, from its first attempt. */
export const pushedCallHorizonMs = 24 * 3600_000;

/** A subscription's delivery: the wait before each attempt (the first at once). */
export const subscriptionScheduleMs = [0, 5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000] as const;

/** A wait spread uniformly over ±20% of itself (`random` in [0, 1)). */
export function jittered(delayMs: number, random: () => number = Math.random): number {
  return Math.round(delayMs * (1 - jitterFraction + 2 * jitterFraction * random()));
}

/** The wait after a pushed call's attempt `failedAttempt` (1-based) failed: 1 s, 2 s, 4 s… up to 5 min, jittered. */
export function pushedCallRetryDelayMs(failedAttempt: number, random: () => number = Math.random): number {
  const base = Math.min(pushedCallBackoffCapMs, 1_000 * 2 ** Math.min(30, Math.max(0, failedAttempt - 1)));
  return jittered(base, random);
}

/** The wait after a subscription delivery's attempt `failedAttempt` failed, or undefined when its schedule is spent. */
export function subscriptionRetryDelayMs(failedAttempt: number, random: () => number = Math.random): number | undefined {
  const next = subscriptionScheduleMs[failedAttempt];
  return next === undefined ? undefined : jittered(next, random);
}

/** The two schedules a sender uses (injectable: a test passes shorter ones). */
export type WebhookRetrySchedule = {
  pushedCall(failedAttempt: number): number;
  subscription(failedAttempt: number): number | undefined;
};

export const defaultRetrySchedule: WebhookRetrySchedule = {
  pushedCall: (failedAttempt) => pushedCallRetryDelayMs(failedAttempt),
  subscription: (failedAttempt) => subscriptionRetryDelayMs(failedAttempt),
};

export type NextAttempt = { retryAt: number } | { giveUp: string };

/**
 * What follows a failed attempt: the next one's time, or why the delivery is
 * given up. A pushed call's last retry is brought forward to its deadline, so
 * a call whose deadline passes undelivered is dead-lettered then, not up to
 * five minutes later.
 */
export function nextAttempt(
  delivery: { subscriptionId?: string; a2aPush?: unknown; attempt: number; giveUpAt?: number },
  failedAt: number,
  schedule: WebhookRetrySchedule = defaultRetrySchedule,
): NextAttempt {
  // An A2A task's push follows a subscription's schedule: it reports an event, not a call.
  if (delivery.subscriptionId || delivery.a2aPush) {
    const delay = schedule.subscription(delivery.attempt);
    if (delay === undefined) return { giveUp: `Gave up after ${delivery.attempt} attempts (the retry schedule is spent)` };
    return { retryAt: failedAt + delay };
  }
  const retryAt = failedAt + schedule.pushedCall(delivery.attempt);
  if (delivery.giveUpAt === undefined) return { retryAt };
  if (failedAt >= delivery.giveUpAt) return { giveUp: `The call's deadline (${new Date(delivery.giveUpAt).toISOString()}) passed before its push was delivered` };
  return { retryAt: Math.min(retryAt, delivery.giveUpAt) };
}
