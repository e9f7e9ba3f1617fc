/**
 * The console's charts, drawn as inline SVG (no chart library): horizontal
 * bars per tool, stacked (calls: succeeded and failed by kind) or grouped
 * (latency: median and p95), and a chart over time (calls per interval as
 * stacked columns, latency as lines). Every mark has a `<title>` with its
 * number, and every chart an accessible name.
 */

const svgNamespace = "http://www.w3.org/2000/svg";

type Attributes = Record<string, string | number>;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: (SVGElement | string | null)[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNamespace, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) if (child !== null) element.append(child);
  return element;
}

export type Series = { id: string; label: string; color: string };
export type BarRow = { label: string; values: Record<string, number> };

/** A round number at or above `value` (1, 2, 5 × 10ⁿ). */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

/** An axis from 0 past `max` in `ticks` round steps (whole steps for counts). */
export function axisEnd(max: number, ticks: number, whole: boolean): number {
  let step = niceCeiling(max / ticks);
  if (whole) step = Math.max(1, Math.ceil(step));
  return step * Math.max(1, Math.ceil(max / step - 1e-9));
}

/** The tick values of an axis from 0 to `end`: `ticks` steps, fewer when whole steps of a small count would repeat. */
function tickValues(end: number, ticks: number, whole: boolean): number[] {
  const count = whole ? Math.min(ticks, end) : ticks;
  return Array.from({ length: count + 1 }, (_, index) => (end * index) / count);
}

const width = 760;
const labelWidth = 190;
const rightPadding = 70;
const rowHeight = 26;
const axisHeight = 24;

function legend(series: Series[], y: number): SVGGElement {
  let x = labelWidth;
  const group = svg("g", { class: "legend" });
  for (const entry of series) {
    group.append(svg("rect", { x, y: y - 10, width: 12, height: 12, fill: entry.color, rx: 2 }), svg("text", { x: x + 16, y, class: "legend-label" }, entry.label));
    x += 24 + entry.label.length * 7;
  }
  return group;
}

function axis(max: number, whole: boolean, y: number, format: (value: number) => string): SVGGElement {
  const group = svg("g", { class: "axis" });
  const span = width - labelWidth - rightPadding;
  for (const value of tickValues(max, 4, whole)) {
    const x = labelWidth + (span * value) / max;
    group.append(
      svg("line", { x1: x, x2: x, y1: axisHeight - 4, y2: y, class: "grid" }),
      svg("text", { x, y: axisHeight - 8, "text-anchor": "middle", class: "tick" }, format(value)),
    );
  }
  return group;
}

const shorten = (label: string) => (label.length > 26 ? `${label.slice(0, 25)}…` : label);

/**
 * One bar per row, its series side by side (`stacked: false`) or end to end
 * (`stacked: true`), against one axis from 0.
 */
export function barChart(options: {
  title: string;
  rows: BarRow[];
  series: Series[];
  stacked: boolean;
  /** The values are counts: whole ticks. */
  whole: boolean;
  format: (value: number) => string;
  id: string;
}): SVGSVGElement {
  const { rows, series, stacked, format } = options;
  const perRow = stacked ? 1 : series.length;
  const bandHeight = stacked ? rowHeight : 12 * perRow + 10;
  const largest = Math.max(
    0,
    ...rows.map((row) => (stacked ? series.reduce((sum, entry) => sum + (row.values[entry.id] ?? 0), 0) : Math.max(0, ...series.map((entry) => row.values[entry.id] ?? 0)))),
  );
  const max = axisEnd(largest, 4, options.whole);
  const span = width - labelWidth - rightPadding;
  const top = axisHeight;
  const height = top + rows.length * bandHeight + 34;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": options.title, id: options.id }, svg("title", {}, options.title));
  chart.append(axis(max, options.whole, top + rows.length * bandHeight, format));
  rows.forEach((row, index) => {
    const y = top + index * bandHeight;
    const group = svg("g", { class: "bar-row", "data-label": row.label });
    group.append(svg("text", { x: labelWidth - 8, y: y + bandHeight / 2 + 4, "text-anchor": "end", class: "row-label" }, svg("title", {}, row.label), shorten(row.label)));
    let x = labelWidth;
    series.forEach((entry, seriesIndex) => {
      const value = row.values[entry.id] ?? 0;
      const barWidth = (value / max) * span;
      const barY = stacked ? y + 4 : y + 5 + seriesIndex * 12;
      const barHeight = stacked ? bandHeight - 8 : 10;
      if (value > 0) {
        group.append(
          svg(
            "rect",
            {
              x: stacked ? x : labelWidth,
              y: barY,
              width: Math.max(barWidth, 1),
              height: barHeight,
              fill: entry.color,
              "data-series": entry.id,
              "data-value": value,
              class: "bar",
            },
            svg("title", {}, `${row.label}: ${entry.label} ${format(value)}`),
          ),
        );
      }
      if (!stacked) group.append(svg("text", { x: labelWidth + barWidth + 4, y: barY + 9, class: "value" }, format(value)));
      if (stacked) x += barWidth;
    });
    if (stacked) group.append(svg("text", { x: x + 4, y: y + bandHeight / 2 + 4, class: "value" }, format(series.reduce((sum, entry) => sum + (row.values[entry.id] ?? 0), 0))));
    chart.append(group);
  });
  chart.append(legend(series, height - 10));
  return chart;
}

export type TimeBucket = { start: number; end: number; values: Record<string, number>; lines: Record<string, number | undefined> };

/**
 * Columns per interval (the `columns` series stacked) against the left axis,
 * and `lines` (e.g. latency percentiles) against the right one.
 */
export function timeChart(options: {
  title: string;
  id: string;
  buckets: TimeBucket[];
  columns: Series[];
  lines: Series[];
  formatColumn: (value: number) => string;
  formatLine: (value: number) => string;
  formatTime: (ms: number) => string;
}): SVGSVGElement {
  const { buckets, columns, lines } = options;
  const left = 56;
  const right = 64;
  const top = 16;
  const plotHeight = 200;
  const height = top + plotHeight + 60;
  const span = width - left - right;
  const columnMax = axisEnd(Math.max(0, ...buckets.map((bucket) => columns.reduce((sum, entry) => sum + (bucket.values[entry.id] ?? 0), 0))), 4, true);
  const lineMax = axisEnd(Math.max(0, ...buckets.flatMap((bucket) => lines.map((entry) => bucket.lines[entry.id] ?? 0))), 4, false);
  const slot = span / Math.max(buckets.length, 1);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": options.title, id: options.id }, svg("title", {}, options.title));
  const yColumn = (value: number) => top + plotHeight - (value / columnMax) * plotHeight;
  const yLine = (value: number) => top + plotHeight - (value / lineMax) * plotHeight;
  const grid = svg("g", { class: "axis" });
  for (const value of tickValues(columnMax, 4, true)) {
    const y = yColumn(value);
    grid.append(
      svg("line", { x1: left, x2: width - right, y1: y, y2: y, class: "grid" }),
      svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "tick" }, options.formatColumn(value)),
    );
  }
  for (const value of tickValues(lineMax, 4, false)) grid.append(svg("text", { x: width - right + 6, y: yLine(value) + 4, class: "tick" }, options.formatLine(value)));
  chart.append(grid);
  buckets.forEach((bucket, index) => {
    let base = 0;
    const x = left + index * slot + slot * 0.15;
    const group = svg("g", { class: "column", "data-start": new Date(bucket.start).toISOString() });
    for (const entry of columns) {
      const value = bucket.values[entry.id] ?? 0;
      if (value > 0) {
        group.append(
          svg(
            "rect",
            {
              x,
              y: yColumn(base + value),
              width: slot * 0.7,
              height: yColumn(base) - yColumn(base + value),
              fill: entry.color,
              class: "bar",
              "data-series": entry.id,
              "data-value": value,
            },
            svg("title", {}, `${options.formatTime(bucket.start)}: ${entry.label} ${options.formatColumn(value)}`),
          ),
        );
      }
      base += value;
    }
    chart.append(group);
  });
  for (const entry of lines) {
    const points = buckets.flatMap((bucket, index) => {
      const value = bucket.lines[entry.id];
      return value === undefined ? [] : [{ x: left + (index + 0.5) * slot, y: yLine(value), value, start: bucket.start }];
    });
    if (points.length === 0) continue;
    chart.append(
      svg("polyline", {
        points: points.map((point) => `${point.x},${point.y}`).join(" "),
        fill: "none",
        stroke: entry.color,
        "stroke-width": 2,
        class: "line",
        "data-series": entry.id,
      }),
      ...points.map((point) =>
        svg(
          "circle",
          { cx: point.x, cy: point.y, r: 3.5, fill: entry.color, class: "point", "data-series": entry.id, "data-value": point.value },
          svg("title", {}, `${options.formatTime(point.start)}: ${entry.label} ${options.formatLine(point.value)}`),
        ),
      ),
    );
  }
  const first = buckets[0];
  const last = buckets.at(-1);
  if (first && last) {
    chart.append(
      svg("text", { x: left, y: top + plotHeight + 16, class: "tick" }, options.formatTime(first.start)),
      svg("text", { x: width - right, y: top + plotHeight + 16, "text-anchor": "end", class: "tick" }, options.formatTime(last.end)),
    );
  }
  let x = left;
  const legendY = height - 12;
  for (const entry of [...columns, ...lines]) {
    chart.append(svg("rect", { x, y: legendY - 10, width: 12, height: 12, fill: entry.color, rx: 2 }), svg("text", { x: x + 16, y: legendY, class: "legend-label" }, entry.label));
    x += 24 + entry.label.length * 7;
  }
  return chart;
}
