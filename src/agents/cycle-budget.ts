/**
 * The runaway guard: at most `limits.maxCyclesPerMinute` cycles start in any
 * sliding minute. A pure decision over the start times the agent object
 * keeps, tested on its own.
 */
export const budgetWindowMs = 60_000;

export type BudgetDecision = { ok: true; starts: number[] } | { ok: false; retryAt: number; starts: number[] };

/** May a cycle start at `now`? `starts` are earlier start times; the answer carries the window to keep. */
export function checkCycleBudget(starts: number[], limit: number, now: number): BudgetDecision {
  const recent = starts.filter((at) => at > now - budgetWindowMs && at <= now).sort((a, b) => a - b);
  if (recent.length < limit) return { ok: true, starts: [...recent, now] };
  // The window frees up when the oldest start in it leaves.
  return { ok: false, retryAt: recent[recent.length - limit] + budgetWindowMs, starts: recent };
}
