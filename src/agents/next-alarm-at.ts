/**
 * When the agent object's one alarm should fire. While a cycle runs, it is
 * the heartbeat (a little ahead of now, renewed while the cycle lives: an
 * alarm cannot fire during the running one, so it only ever fires if the
 * instance died). Otherwise the earliest of a deadline and the moment a cycle
 * is owed (ready events, a run's next attempt, the end of a throttle).
 * Undefined: no alarm. Never in the past, never an invalid time.
 */
export function nextAlarmAt(input: {
  now: number;
  earliestDeadline: number | undefined;
  nextCycleAt: number | undefined;
  cycleRunning: boolean;
  heartbeatAt: number;
}): number | undefined {
  const candidates = (input.cycleRunning ? [input.heartbeatAt] : [input.earliestDeadline, input.nextCycleAt]).filter(
    (value): value is number => value !== undefined && Number.isFinite(value),
  );
  if (candidates.length === 0) return undefined;
  return Math.max(input.now, Math.min(...candidates));
}
