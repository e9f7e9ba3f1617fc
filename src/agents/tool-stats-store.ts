/**
 * Call statistics per tool, kept in the agent object's storage (SQLite): the
 * totals since the agent was created (calls, failures by kind, cache hits,
 * bytes in and out) and the latencies of its last `keptLatencies` calls, from
 * which the median and p95 are read. Counted in memory as each call ends and
 * written behind, in one statement for every tool a cycle used, when the
 * cycle ends (or when they are read): they are statistics, so a crash in the
 * middle of a cycle may lose that cycle's counts, never a record. Read by
 * `GET /api/agents/:agentId/tool-stats`. Deleted with the agent.
 */
import { z } from "zod";
import { parseStoredJson } from "../db/parse-stored-json";
import { type CallStat, type CallTotals, countCall, emptyFailures, FailureKind, latencySummary, type ToolStatsSummary } from "../tools";

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
  /** Tools counted since the last write: their provider and last call time. */
  readonly #dirty = new Map<string, { provider: string; at: number }>();

  record(stat: CallStat): void {
    const totals = this.#totals(stat.toolName);
    countCall(totals, stat);
    totals.latencies.push(stat.latencyMs);
    if (totals.latencies.length > keptLatencies) totals.latencies.splice(0, totals.latencies.length - keptLatencies);
    this.#dirty.set(stat.toolName, { provider: stat.provider, at: stat.at });
  }

  /** Writes what was counted since the last write: one statement for up to ten tools. */
  flush(): void {
    const tools = [...this.#dirty];
    this.#dirty.clear();
    // Ten columns a row: ten rows a statement stay under the 100 bound parameters a statement may have.
    for (let start = 0; start < tools.length; start += 10) {
      const rows = tools.slice(start, start + 10);
      try {
        this.sql.exec(
          `INSERT INTO tool_stats (tool, provider, calls, failed, failures, cache_hits, bytes_in, bytes_out, latencies, last_at)
           VALUES ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}
           ON CONFLICT(tool) DO UPDATE SET provider = excluded.provider, calls = excluded.calls, failed = excluded.failed, failures = excluded.failures,
             cache_hits = excluded.cache_hits, bytes_in = excluded.bytes_in, bytes_out = excluded.bytes_out, latencies = excluded.latencies, last_at = excluded.last_at`,
          ...rows.flatMap(([tool, { provider, at }]) => {
            const totals = this.#totals(tool);
            return [
              tool,
              provider,
              totals.calls,
              totals.failed,
              JSON.stringify(totals.failures),
              totals.cacheHits,
              totals.bytesIn,
              totals.bytesOut,
              JSON.stringify(totals.latencies),
              at,
            ];
          }),
        );
      } catch (error) {
        // Not written: what memory holds is forgotten, so the next count starts again from the table.
        for (const [tool] of rows) this.#rows.delete(tool);
        console.error("could not write tool statistics", error);
      }
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

  /** Every tool's statistics, most called first (what was counted and not yet written is written first). */
  read(): AgentToolStats[] {
    this.flush();
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
