import { zoneOffsetMs } from './time-zones';

/**
 * The benchmark's two plots, written as plain SVG strings (no browser, no plotting package): a
 * week of hourly forecasts against the measurement, and an error per month as grouped bars.
 * Missing values (NaN) break a line or leave a bar out; they are never drawn as 0.
 */

const HOUR_MS = 3_600_000;
const WIDTH = 960;
const HEIGHT = 400;
const MARGIN = { top: 76, right: 24, bottom: 56, left: 72 };
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
const AXIS = '#444';
const GRID = '#e4e4e4';

export interface LineSeries {
  name: string;
  /** One value per hour; NaN where missing. */
  values: readonly number[];
  color: string;
  dashed?: boolean;
}

export interface WeekChart {
  title: string;
  subtitle: string;
  /** First hour, ms (UTC). */
  start: number;
  /** Zone whose midnights and dates label the x axis. */
  timeZone: string;
  yLabel: string;
  series: LineSeries[];
}

export interface BarChart {
  title: string;
  subtitle: string;
  yLabel: string;
  /** One name and colour per bar of a group. */
  series: { name: string; color: string }[];
  /** One group per label (a month); a null value has no bar. */
  groups: { label: string; values: (number | null)[] }[];
  /** Text on top of a bar and on the y axis. */
  format: (value: number) => string;
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const coordinate = (value: number) => (Math.round(value * 10) / 10).toString();

/** Round tick values from 0 to at least `max`: steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(max: number, count = 5): number[] {
  const top = max > 0 && Number.isFinite(max) ? max : 1;
  const raw = top / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= raw) ?? raw;
  const ticks: number[] = [];
  for (let tick = 0; tick < top + step * 0.999; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${coordinate(x)}" y="${coordinate(y)}" ${attributes}>${escapeXml(content)}</text>`;
}

function frame(title: string, subtitle: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ${FONT} font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    text(MARGIN.left, 24, title, 'font-size="16" font-weight="600" fill="#111"'),
    text(MARGIN.left, 42, subtitle, 'fill="#555"'),
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function yAxis(
  ticks: number[],
  y: (value: number) => number,
  label: string,
  format: (value: number) => string,
) {
  const right = WIDTH - MARGIN.right;
  const lines = ticks.map(
    (tick) =>
      `<line x1="${MARGIN.left}" x2="${right}" y1="${coordinate(y(tick))}" y2="${coordinate(y(tick))}" stroke="${GRID}"/>` +
      text(MARGIN.left - 8, y(tick) + 4, format(tick), `text-anchor="end" fill="${AXIS}"`),
  );
  const middle = (MARGIN.top + HEIGHT - MARGIN.bottom) / 2;
  lines.push(
    text(
      18,
      middle,
      label,
      `text-anchor="middle" fill="${AXIS}" transform="rotate(-90 18 ${coordinate(middle)})"`,
    ),
  );
  return lines;
}

function legend(entries: { name: string; color: string; dashed?: boolean; bar?: boolean }[]): string[] {
  const out: string[] = [];
  let x = WIDTH - MARGIN.right;
  for (const entry of [...entries].reverse()) {
    const width = 34 + entry.name.length * 7;
    x -= width;
    const y = 60;
    out.push(
      entry.bar
        ? `<rect x="${coordinate(x)}" y="${y - 9}" width="14" height="10" fill="${entry.color}"/>`
        : `<line x1="${coordinate(x)}" x2="${coordinate(x + 18)}" y1="${y - 4}" y2="${y - 4}" stroke="${entry.color}" stroke-width="2.5"${entry.dashed ? ' stroke-dasharray="5 3"' : ''}/>`,
      text(x + 22, y, entry.name, 'fill="#222"'),
    );
  }
  return out;
}

/** Path data for one series: a new segment after every missing value. */
function linePath(
  values: readonly number[],
  x: (hour: number) => number,
  y: (value: number) => number,
): string {
  const parts: string[] = [];
  let drawing = false;
  values.forEach((value, hour) => {
    if (!Number.isFinite(value)) {
      drawing = false;
      return;
    }
    parts.push(`${drawing ? 'L' : 'M'}${coordinate(x(hour))} ${coordinate(y(value))}`);
    drawing = true;
  });
  return parts.join(' ');
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export function weekChartSvg(chart: WeekChart): string {
  const hours = Math.max(1, ...chart.series.map((series) => series.values.length));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const bottom = HEIGHT - MARGIN.bottom;
  const finite = chart.series.flatMap((series) => series.values.filter(Number.isFinite));
  const ticks = niceTicks(Math.max(0, ...finite));
  const top = ticks[ticks.length - 1];
  const x = (hour: number) => MARGIN.left + (hour / hours) * plotWidth;
  const y = (value: number) => bottom - (value / top) * (bottom - MARGIN.top);
  const body = yAxis(ticks, y, chart.yLabel, (value) => value.toLocaleString('en-US'));

  // A line and a date at each local midnight.
  for (let hour = 0; hour <= hours; hour++) {
    const at = chart.start + hour * HOUR_MS;
    const wall = new Date(at + zoneOffsetMs(at, chart.timeZone));
    if (wall.getUTCHours() !== 0 || wall.getUTCMinutes() !== 0) continue;
    body.push(
      `<line x1="${coordinate(x(hour))}" x2="${coordinate(x(hour))}" y1="${MARGIN.top}" y2="${bottom}" stroke="${GRID}"/>`,
    );
    if (hour < hours)
      body.push(
        text(
          x(Math.min(hour + 12, hours)),
          bottom + 18,
          `${WEEKDAYS[wall.getUTCDay()]} ${wall.toISOString().slice(0, 10)}`,
          `text-anchor="middle" fill="${AXIS}"`,
        ),
      );
  }
  body.push(
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${bottom}" y2="${bottom}" stroke="${AXIS}"/>`,
    text(
      MARGIN.left + plotWidth / 2,
      bottom + 40,
      `local days, ${chart.timeZone}`,
      `text-anchor="middle" fill="${AXIS}"`,
    ),
  );
  for (const series of chart.series) {
    const path = linePath(series.values, x, y);
    if (path === '') continue;
    body.push(
      `<path d="${path}" fill="none" stroke="${series.color}" stroke-width="${series.dashed ? 1.5 : 2}" stroke-linejoin="round"${series.dashed ? ' stroke-dasharray="5 3"' : ''}><title>${escapeXml(series.name)}</title></path>`,
    );
  }
  body.push(...legend(chart.series));
  return frame(chart.title, chart.subtitle, body);
}

export function barChartSvg(chart: BarChart): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const bottom = HEIGHT - MARGIN.bottom;
  const values = chart.groups
    .flatMap((group) => group.values)
    .filter((value): value is number => value !== null);
  const ticks = niceTicks(Math.max(0, ...values.filter(Number.isFinite)));
  const top = ticks[ticks.length - 1];
  const y = (value: number) => bottom - (Math.max(0, value) / top) * (bottom - MARGIN.top);
  const body = yAxis(ticks, y, chart.yLabel, chart.format);
  const groupWidth = plotWidth / Math.max(1, chart.groups.length);
  const barWidth = Math.min(48, (groupWidth * 0.8) / Math.max(1, chart.series.length));
  chart.groups.forEach((group, index) => {
    const centre = MARGIN.left + groupWidth * (index + 0.5);
    const left = centre - (barWidth * chart.series.length) / 2;
    group.values.forEach((value, bar) => {
      if (value === null || !Number.isFinite(value)) return;
      const x = left + bar * barWidth;
      const series = chart.series[bar];
      body.push(
        `<rect x="${coordinate(x + 1)}" y="${coordinate(y(value))}" width="${coordinate(barWidth - 2)}" height="${coordinate(bottom - y(value))}" fill="${series.color}"><title>${escapeXml(`${group.label} ${series.name}: ${chart.format(value)}`)}</title></rect>`,
      );
      if (barWidth >= 22)
        body.push(
          text(
            x + barWidth / 2,
            y(value) - 4,
            chart.format(value),
            'text-anchor="middle" font-size="10" fill="#333"',
          ),
        );
    });
    body.push(text(centre, bottom + 18, group.label, `text-anchor="middle" fill="${AXIS}"`));
  });
  body.push(
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${bottom}" y2="${bottom}" stroke="${AXIS}"/>`,
    ...legend(chart.series.map((series) => ({ ...series, bar: true }))),
  );
  return frame(chart.title, chart.subtitle, body);
}
