/**
 * When the agent object's one alarm should fire: the earliest of a deadline,
 * an inbox event coming out of backoff (only when no cycle runs: a running
 * loop takes those itself), and the watchdog of a running cycle. Undefined:
 * no alarm. Never in the past, never an invalid time.
 */
export function nextAlarmAt(input: {
  now: number;
  earliestDeadline: number | undefined;
  nextReadyAt: number | undefined;
  cycleRunning: boolean;
  watchdogAt: number | undefined;
}): number | undefined {
  const candidates = [input.earliestDeadline, input.cycleRunning ? input.watchdogAt : input.nextReadyAt].filter(
    (value): value is number => value !== undefined && Number.isFinite(value),
  );
  if (candidates.length === 0) return undefined;
  return Math.max(input.now, Math.min(...candidates));
}
