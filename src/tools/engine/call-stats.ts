/**
 * Call statistics (docs/tools.md, "Call statistics"): per tool, how many calls,
 * failures by kind, latency median and p95, bytes in and out, cache hits. One
 * summary function serves the run record (over a run's calls) and the agent's
 * totals (over the calls the agent object kept).
 */
import type { RunToolCall } from "../../db/runs";
import { FailureKind } from "./tool-outcome";

/** One finished call, as the statistics see it. */
export type CallStat = {
  toolName: string;
  provider: string;
  status: "completed" | "failed" | "pending";
  failureKind?: FailureKind;
  latencyMs: number;
  bytesIn: number;
  bytesOut: number;
  cacheHit: boolean;
  at: number;
};

export type FailureCounts = Record<FailureKind, number>;

export type ToolStatsSummary = {
  toolName: string;
  provider: string;
  calls: number;
  failed: number;
  failures: FailureCounts;
  cacheHits: number;
  latencyMs: { median: number; p95: number };
  bytesIn: number;
  bytesOut: number;
};

export const emptyFailures = (): FailureCounts => ({ validation: 0, timeout: 0, upstream: 0, permission: 0, internal: 0 });

/** The value below which `share` of the sorted values lie (nearest rank); 0 for none. */
export function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1));
  return sorted[rank];
}

export function latencySummary(latencies: number[]): { median: number; p95: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

/** The running totals one call adds to (a summary, or the agent object's kept row). */
export type CallTotals = Pick<ToolStatsSummary, "calls" | "failed" | "failures" | "cacheHits" | "bytesIn" | "bytesOut">;

/** Adds one call to `totals` (its latency is the caller's to keep). */
export function countCall(totals: CallTotals, call: Omit<CallStat, "at">): void {
  totals.calls += 1;
  if (call.status === "failed") {
    totals.failed += 1;
    totals.failures[call.failureKind ?? "internal"] += 1;
  }
  if (call.cacheHit) totals.cacheHits += 1;
  totals.bytesIn += call.bytesIn;
  totals.bytesOut += call.bytesOut;
}

/** A summary per tool, most called first. */
export function summarizeCalls(calls: Iterable<Omit<CallStat, "at">>): ToolStatsSummary[] {
  const byTool = new Map<string, { summary: ToolStatsSummary; latencies: number[] }>();
  for (const call of calls) {
    let entry = byTool.get(call.toolName);
    if (!entry) {
      entry = {
        summary: {
          toolName: call.toolName,
          provider: call.provider,
          calls: 0,
          failed: 0,
          failures: emptyFailures(),
          cacheHits: 0,
          latencyMs: { median: 0, p95: 0 },
          bytesIn: 0,
          bytesOut: 0,
        },
        latencies: [],
      };
      byTool.set(call.toolName, entry);
    }
    countCall(entry.summary, call);
    entry.latencies.push(call.latencyMs);
  }
  return [...byTool.values()]
    .map(({ summary, latencies }) => ({ ...summary, latencyMs: latencySummary(latencies) }))
    .sort((a, b) => b.calls - a.calls || a.toolName.localeCompare(b.toolName));
}

/** A run's tool calls summed up per tool (calls still running are left out). */
export function runToolStats(calls: RunToolCall[]): ToolStatsSummary[] {
  return summarizeCalls(
    calls.flatMap((call) =>
      call.status === "running"
        ? []
        : [
            {
              toolName: call.toolName,
              provider: call.provider ?? "unknown",
              status: call.status,
              failureKind: FailureKind.safeParse(call.failureKind).data,
              latencyMs: call.latencyMs ?? 0,
              bytesIn: call.bytesIn ?? 0,
              bytesOut: call.bytesOut ?? 0,
              cacheHit: call.cacheHit ?? false,
            },
          ],
    ),
  );
}
