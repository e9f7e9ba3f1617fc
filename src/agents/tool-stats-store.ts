/**
 * Call statistics per tool, kept in the agent object's storage (SQLite): the
 * totals since the agent was created (calls, failures by kind, cache hits,
 * bytes in and out) and the latencies of its last `keptLatencies` calls, from
 * which the median and p95 are read. Written as each call ends; read by
 * `GET /api/agents/:agentId/tool-stats`. Deleted with the agent.
 */
import { z } from "zod";
import { parseStoredJson } from "../db/parse-stored-json";
import { type CallStat, type CallTotals, countCall, emptyFailures, latencySummary, type ToolStatsSummary } from "../tools/engine/call-stats";
import { FailureKind } from "../tools/engine/tool-outcome";

/** Latency percentiles are over each tool's most recent calls, this many. */
export const keptLatencies = 500;

type Row = {
  tool: string;
  provider: string;
  calls: number;
  failed: number;
  failures: string;
  cache_hits: number;
  bytes_in: number;
  bytes_out: number;
  latencies: string;
  last_at: number;
};

const Failures = z.partialRecord(FailureKind, z.number());
const Latencies = z.array(z.number());

export type AgentToolStats = ToolStatsSummary & { lastCallAt: string };

type Totals = CallTotals & { latencies: number[] };

export class ToolStatsStore {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Each tool's row as last written, parsed: only this class writes the table,
   * so a call's statistics cost one write instead of a read, two parses and
   * a write (the latencies are up to `keptLatencies` numbers).
   */
  readonly #rows = new Map<string, Totals>();

  record(stat: CallStat): void {
    const totals = this.#totals(stat.toolName);
    countCall(totals, stat);
    totals.latencies.push(stat.latencyMs);
    if (totals.latencies.length > keptLatencies) totals.latencies.splice(0, totals.latencies.length - keptLatencies);
    try {
      this.sql.exec(
        `INSERT INTO tool_stats (tool, provider, calls, failed, failures, cache_hits, bytes_in, bytes_out, latencies, last_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(tool) DO UPDATE SET provider = excluded.provider, calls = excluded.calls, failed = excluded.failed, failures = excluded.failures,
           cache_hits = excluded.cache_hits, bytes_in = excluded.bytes_in, bytes_out = excluded.bytes_out, latencies = excluded.latencies, last_at = excluded.last_at`,
        stat.toolName,
        stat.provider,
        totals.calls,
        totals.failed,
        JSON.stringify(totals.failures),
        totals.cacheHits,
        totals.bytesIn,
        totals.bytesOut,
        JSON.stringify(totals.latencies),
        stat.at,
      );
    } catch (error) {
      // Not written: the next call starts again from what the table holds.
      this.#rows.delete(stat.toolName);
      throw error;
    }
  }

  #totals(tool: string): Totals {
    let totals = this.#rows.get(tool);
    if (!totals) {
      const row = this.sql.exec<Row>("SELECT * FROM tool_stats WHERE tool = ?", tool).toArray()[0];
      const stored = row ? jsonColumns(row) : { failures: {}, latencies: [] };
      totals = {
        calls: row?.calls ?? 0,
        failed: row?.failed ?? 0,
        failures: { ...emptyFailures(), ...stored.failures },
        cacheHits: row?.cache_hits ?? 0,
        bytesIn: row?.bytes_in ?? 0,
        bytesOut: row?.bytes_out ?? 0,
        latencies: stored.latencies,
      };
      this.#rows.set(tool, totals);
    }
    return totals;
  }

  /** Every tool's statistics, most called first. */
  read(): AgentToolStats[] {
    return this.sql
      .exec<Row>("SELECT * FROM tool_stats ORDER BY calls DESC, tool")
      .toArray()
      .map((row) => {
        const stored = jsonColumns(row);
        return {
          toolName: row.tool,
          provider: row.provider,
          calls: row.calls,
          failed: row.failed,
          failures: { ...emptyFailures(), ...stored.failures },
          cacheHits: row.cache_hits,
          latencyMs: latencySummary(stored.latencies),
          bytesIn: row.bytes_in,
          bytesOut: row.bytes_out,
          lastCallAt: new Date(row.last_at).toISOString(),
        };
      });
  }
}

/** A row's JSON columns, parsed. These are statistics, not records: a column that does not parse counts as empty, and is logged. */
function jsonColumns(row: Row): { failures: z.infer<typeof Failures>; latencies: number[] } {
  const failures = parseStoredJson(Failures, row.failures);
  const latencies = parseStoredJson(Latencies, row.latencies);
  if (!failures.ok) console.error("unreadable failure counts in tool statistics, counted as none", row.tool, failures.reason);
  if (!latencies.ok) console.error("unreadable latencies in tool statistics, counted as none", row.tool, latencies.reason);
  return { failures: failures.ok ? failures.value : {}, latencies: latencies.ok ? latencies.value : [] };
}
