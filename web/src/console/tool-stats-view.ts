/**
 * An agent's tool statistics in the console, as charts. Per tool, from
 * `GET /api/agents/:id/tool-stats` (totals since the agent was created; the
 * gateway keeps no history of them over time): calls by outcome and failure
 * kind, and latency median and p95. Over time, computed here from the tool
 * calls on the agent's recent run records (`GET /api/agents/:id/runs`):
 * calls and failures per interval, latency median and p95 per interval.
 */
import type { Run } from "../../../client/src/index";
import { h } from "../dom";
import { agentPicker, type ConsoleContext, errorText, formatDuration, formatTime, viewHeader } from "./console-context";
import { readToolCalls } from "./run-record";
import { barChart, type Series, timeChart, type TimeBucket } from "./svg-charts";

type AgentToolStats = Awaited<ReturnType<ConsoleContext["client"]["agents"]["toolStats"]>>["tools"][number];

const outcomeSeries: Series[] = [
  { id: "ok", label: "succeeded", color: "#3b8f5a" },
  { id: "validation", label: "validation", color: "#d9a400" },
  { id: "timeout", label: "timeout", color: "#e0702a" },
  { id: "upstream", label: "upstream", color: "#c43d3d" },
  { id: "permission", label: "permission", color: "#8e44ad" },
  { id: "internal", label: "internal", color: "#5d6470" },
];
const latencySeries: Series[] = [
  { id: "median", label: "p50 (median)", color: "#3f6fd1" },
  { id: "p95", label: "p95", color: "#e0702a" },
];
const runsRead = 200;
const intervals = 12;

/** The value at `fraction` of the sorted values (nearest rank). */
export function percentile(sorted: number[], fraction: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

const whole = (value: number) => String(Math.round(value));
const milliseconds = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`);

export async function toolStatsView(context: ConsoleContext, agentId: string | undefined): Promise<HTMLElement> {
  const picker = await agentPicker(context, agentId, (id) => `#stats/${id}`);
  const section = h("section", { class: "view stats-view" }, viewHeader("Tool statistics", picker));
  if (!agentId) {
    section.append(h("p", { class: "empty" }, "Choose an agent to see its tool statistics."));
    return section;
  }
  let tools: AgentToolStats[];
  let runs: Run[];
  try {
    [tools, runs] = await Promise.all([
      context.client.agents.toolStats(agentId).then((answer) => answer.tools),
      context.client.agents.runs(agentId, { limit: runsRead }).then((answer) => answer.runs),
    ]);
  } catch (error) {
    section.append(h("div", { class: "problems", role: "alert" }, `Could not read the statistics: ${errorText(error)}`));
    return section;
  }
  section.append(h("div", { class: "toolbar" }, h("a", { href: `#stats/${agentId}`, class: "link", id: "refresh-stats" }, "Refresh")));
  if (tools.length === 0) {
    section.append(h("p", { class: "empty" }, "No tool calls yet: the charts appear after the agent's first call."));
    return section;
  }
  section.append(
    h("h2", {}, "Per tool, since the agent was created"),
    h(
      "p",
      { class: "hint", id: "stats-scope" },
      "The gateway keeps these totals per tool (latency over each tool's last 500 calls); it keeps no history of them over time. The charts over time further down are computed here from the tool calls on the agent's recent run records.",
    ),
    h(
      "figure",
      { class: "chart-figure" },
      h("figcaption", {}, "Calls: succeeded, and failed by kind"),
      barChart({
        id: "chart-calls",
        title: "Calls per tool, succeeded and failed by kind",
        stacked: true,
        whole: true,
        series: outcomeSeries,
        format: whole,
        rows: tools.map((tool) => ({ label: tool.toolName, values: { ok: Math.max(0, tool.calls - tool.failed), ...tool.failures } })),
      }),
    ),
    h(
      "figure",
      { class: "chart-figure" },
      h("figcaption", {}, "Latency: p50 and p95"),
      barChart({
        id: "chart-latency",
        title: "Latency per tool, p50 and p95",
        stacked: false,
        whole: false,
        series: latencySeries,
        format: milliseconds,
        rows: tools.map((tool) => ({ label: tool.toolName, values: { median: tool.latencyMs.median, p95: tool.latencyMs.p95 } })),
      }),
    ),
    statsTable(tools),
    overTime(runs),
  );
  return section;
}

function statsTable(tools: AgentToolStats[]): HTMLElement {
  return h(
    "table",
    { class: "list numbers", id: "stats-table" },
    h("thead", {}, h("tr", {}, ...["Tool", "Provider", "Calls", "Failed", "Cache hits", "p50", "p95", "Bytes in", "Bytes out", "Last call"].map((title) => h("th", {}, title)))),
    h(
      "tbody",
      {},
      ...tools.map((tool) =>
        h(
          "tr",
          { "data-tool-name": tool.toolName },
          h("td", {}, h("code", {}, tool.toolName)),
          h("td", {}, tool.provider),
          h("td", { class: "number" }, String(tool.calls)),
          h(
            "td",
            {
              class: "number",
              title: Object.entries(tool.failures)
                .map(([kind, count]) => `${kind}: ${count}`)
                .join(", "),
            },
            String(tool.failed),
          ),
          h("td", { class: "number" }, String(tool.cacheHits)),
          h("td", { class: "number" }, formatDuration(tool.latencyMs.median)),
          h("td", { class: "number" }, formatDuration(tool.latencyMs.p95)),
          h("td", { class: "number" }, String(tool.bytesIn)),
          h("td", { class: "number" }, String(tool.bytesOut)),
          h("td", {}, formatTime(tool.lastCallAt)),
        ),
      ),
    ),
  );
}

/** Calls of the recent runs in at most `most` equal intervals (a second at least) from the first to the last. */
export function bucketCalls(calls: { startedAt: number; failed: boolean; latencyMs?: number }[], most: number): TimeBucket[] {
  if (calls.length === 0) return [];
  const first = Math.min(...calls.map((call) => call.startedAt));
  const last = Math.max(...calls.map((call) => call.startedAt));
  const size = Math.max(1_000, Math.ceil((last - first + 1) / most));
  const count = Math.min(most, Math.floor((last - first) / size) + 1);
  const buckets = Array.from({ length: count }, (_, index) => ({ start: first + index * size, end: first + (index + 1) * size, calls: [] as typeof calls }));
  for (const call of calls) buckets[Math.min(count - 1, Math.floor((call.startedAt - first) / size))].calls.push(call);
  return buckets.map((bucket) => {
    const latencies = bucket.calls.flatMap((call) => (call.latencyMs === undefined ? [] : [call.latencyMs])).sort((a, b) => a - b);
    const failed = bucket.calls.filter((call) => call.failed).length;
    return {
      start: bucket.start,
      end: bucket.end,
      values: { ok: bucket.calls.length - failed, failed },
      lines: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
    };
  });
}

function overTime(runs: Run[]): HTMLElement {
  const calls = runs.flatMap((run) =>
    readToolCalls(run.toolCalls).flatMap((call) => {
      const startedAt = call.startedAt ? Date.parse(call.startedAt) : Number.NaN;
      return Number.isNaN(startedAt) ? [] : [{ startedAt, failed: call.status === "failed", latencyMs: call.latencyMs }];
    }),
  );
  const heading = h("h2", {}, "Over time");
  const scope = h(
    "p",
    { class: "hint" },
    `From the tool calls on the agent's last ${runs.length} run record${runs.length === 1 ? "" : "s"} (at most ${runsRead}): ${calls.length} call${calls.length === 1 ? "" : "s"} in up to ${intervals} equal intervals (a second at least) from the first to the last.`,
  );
  if (calls.length === 0) return h("section", { class: "over-time" }, heading, scope, h("p", { class: "empty" }, "No tool calls on the recent runs."));
  const span = Math.max(...calls.map((call) => call.startedAt)) - Math.min(...calls.map((call) => call.startedAt));
  const formatTime = (ms: number) =>
    span < 24 * 3600 * 1000 ? new Date(ms).toLocaleTimeString() : new Date(ms).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  return h(
    "section",
    { class: "over-time" },
    heading,
    scope,
    h(
      "figure",
      { class: "chart-figure" },
      h("figcaption", {}, "Calls and failures per interval (columns, left axis); latency p50 and p95 (lines, right axis)"),
      timeChart({
        id: "chart-over-time",
        title: "Tool calls and latency over time",
        buckets: bucketCalls(calls, intervals),
        columns: [
          { id: "ok", label: "succeeded", color: "#3b8f5a" },
          { id: "failed", label: "failed", color: "#c43d3d" },
        ],
        lines: [
          { id: "p50", label: "p50", color: "#3f6fd1" },
          { id: "p95", label: "p95", color: "#e0702a" },
        ],
        formatColumn: whole,
        formatLine: milliseconds,
        formatTime,
      }),
    ),
  );
}
