import { Markup, markup } from './markup';

/**
 * Charts drawn on the server as inline SVG: no script and nothing fetched, so they show under
 * the share page's Content-Security-Policy and in any browser. Sizes are in the viewBox's units;
 * the page's stylesheet scales the SVG to its container and colours the classes used here.
 */
export const CHART = { width: 640, height: 220, left: 76, right: 28, top: 14, bottom: 26 } as const;

const plotWidth = CHART.width - CHART.left - CHART.right;
const plotHeight = CHART.height - CHART.top - CHART.bottom;
const bottom = CHART.top + plotHeight;

/** A value at an instant (epoch milliseconds); null where nothing was measured. */
export interface TimePoint {
  at: number;
  value: number | null;
}

export interface TimeChartInput {
  /** Oldest first. */
  points: readonly TimePoint[];
  /** The time axis, epoch milliseconds. */
  from: number;
  to: number;
  ticks: ReadonlyArray<{ at: number; label: string }>;
  formatValue: (value: number) => string;
  /** What the chart shows, for screen readers and as its tooltip. */
  title: string;
}

export interface Bar {
  label: string;
  value: number;
  valueLabel: string;
}

export interface BarChartInput {
  bars: readonly Bar[];
  formatValue: (value: number) => string;
  title: string;
}

/** The smallest 1, 2, 2.5 or 5 × 10ⁿ at or above `value`: a round top for the value axis. */
export function niceCeiling(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((factor) => factor * magnitude >= value * (1 - 1e-12)) ?? 10;
  return step * magnitude;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The y of `value` on a value axis from 0 to `top`. */
const yOf = (value: number, top: number) => round(bottom - (Math.max(0, value) / top) * plotHeight);

/** How many steps divide an axis up to `top` (a `niceCeiling`) into round values: 2 in 4, the rest in 5. */
export function gridSteps(top: number): number {
  const leading = top / 10 ** Math.floor(Math.log10(top));
  return Math.abs(leading - 2) < 1e-9 ? 4 : 5;
}

/** Horizontal grid lines with the value axis' labels. */
function valueGrid(top: number, formatValue: (value: number) => string): Markup {
  const steps = gridSteps(top);
  const lines = Array.from({ length: steps + 1 }, (_, index) => {
    const value = (top * index) / steps;
    const y = yOf(value, top);
    return markup`<line class="grid" x1="${CHART.left}" y1="${y}" x2="${CHART.width - CHART.right}" y2="${y}"/><text class="tick" x="${CHART.left - 6}" y="${round(y + 4)}" text-anchor="end">${formatValue(value)}</text>`;
  });
  return markup`${lines}`;
}

function frame(title: string, content: Markup): Markup {
  return markup`<svg class="chart" viewBox="0 0 ${CHART.width} ${CHART.height}" role="img" aria-label="${title}" xmlns="http://www.w3.org/2000/svg"><title>${title}</title>${content}</svg>`;
}

/** Runs of consecutive measured points: a missing value breaks the line. */
function measuredRuns(points: readonly TimePoint[]): Array<Array<{ at: number; value: number }>> {
  const runs: Array<Array<{ at: number; value: number }>> = [];
  let current: Array<{ at: number; value: number }> = [];
  for (const point of points) {
    if (point.value === null || !Number.isFinite(point.value)) {
      if (current.length > 0) runs.push(current);
      current = [];
    } else current.push({ at: point.at, value: point.value });
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/** A filled line over time, the value axis from 0 to a round number above the highest value. */
export function timeAreaChart(input: TimeChartInput): Markup {
  const span = Math.max(1, input.to - input.from);
  const xOf = (at: number) => round(CHART.left + ((at - input.from) / span) * plotWidth);
  const highest = Math.max(0, ...input.points.map((point) => point.value ?? 0));
  const top = niceCeiling(highest);
  const shapes = measuredRuns(input.points).map((run) => {
    const coordinates = run.map((point) => `${xOf(point.at)},${yOf(point.value, top)}`);
    if (run.length === 1) {
      const [x, y] = coordinates[0].split(',');
      return markup`<circle class="dot" cx="${x}" cy="${y}" r="3"/>`;
    }
    const first = xOf(run[0].at);
    const last = xOf(run[run.length - 1].at);
    return markup`<path class="area" d="M${first},${bottom} L${coordinates.join(' L')} L${last},${bottom} Z"/><path class="line" d="M${coordinates.join(' L')}"/>`;
  });
  const ticks = input.ticks.map(
    (tick) =>
      markup`<text class="tick" x="${xOf(tick.at)}" y="${CHART.height - 8}" text-anchor="middle">${tick.label}</text>`,
  );
  return frame(input.title, markup`${valueGrid(top, input.formatValue)}${shapes}${ticks}`);
}

/** One bar per entry, its value above it and its label below. */
export function barChart(input: BarChartInput): Markup {
  const top = niceCeiling(Math.max(0, ...input.bars.map((bar) => bar.value)));
  const slot = plotWidth / Math.max(1, input.bars.length);
  const barWidth = round(Math.min(56, slot * 0.6));
  const bars = input.bars.map((bar, index) => {
    const centre = round(CHART.left + slot * (index + 0.5));
    const y = yOf(bar.value, top);
    return markup`<rect class="bar" x="${round(centre - barWidth / 2)}" y="${y}" width="${barWidth}" height="${round(bottom - y)}"/><text class="value" x="${centre}" y="${round(y - 4)}" text-anchor="middle">${bar.valueLabel}</text><text class="tick" x="${centre}" y="${CHART.height - 8}" text-anchor="middle">${bar.label}</text>`;
  });
  return frame(input.title, markup`${valueGrid(top, input.formatValue)}${bars}`);
}
