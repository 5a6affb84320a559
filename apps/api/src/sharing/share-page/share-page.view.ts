import { createHash } from 'node:crypto';
import { RoiSummary, WeatherRecord } from '@solar/domain';
import { DailyForecastPoint } from '@solar/forecast';
import { SunSourceMetrics, TodaySoFar } from '@solar/telemetry';
import { Markup, markup } from './markup';
import {
  describeWeather,
  formatAge,
  formatDay,
  formatKwh,
  formatMoney,
  formatPercent,
  formatPower,
  formatPowerAxis,
  formatShortDay,
  formatTime,
  formatWeekday,
} from './share-page-format';
import { barChart, timeAreaChart } from './svg-charts';

const HOUR = 3_600_000;

/** A part of the page the owner shares: its data, or why there is none to show. */
export type Section<T> = { shown: true; data: T } | { shown: false; reason: string };

export interface MonitorView {
  /** The newest stored point; null before the first. */
  latest: SunSourceMetrics | null;
  /** Whether the latest point is recent enough to call the installation online. */
  online: boolean;
  today: TodaySoFar;
}

export interface ForecastView {
  /** The days from today (UTC) on, at most seven. */
  days: DailyForecastPoint[];
  createdAt: string;
}

/**
 * How the day-ahead solar forecasts of the last `days` UTC days did, in the terms of the accuracy
 * endpoint: the mean absolute error over daytime hours, and the skill against smart persistence.
 */
export interface ForecastRecord {
  days: number;
  daysScored: number;
  /** Null when no daytime hour was scored. */
  solar: { maeW: number; nmae: number | null } | null;
  vsSmartPersistence: number | null;
}

/** Everything the share page shows; a section is absent when the owner does not share it. */
export interface SharePageView {
  name: string;
  description: string | null;
  installedCapacityWatts: number | null;
  generatedAt: Date;
  monitor?: Section<MonitorView>;
  forecast?: Section<ForecastView>;
  /** With the forecast; null when it could not be scored (the section says nothing of it then). */
  forecastRecord?: ForecastRecord | null;
  returns?: Section<RoiSummary>;
  weather?: Section<WeatherRecord[]>;
}

/**
 * The page's only style sheet. The Content-Security-Policy allows it by its hash, so no other
 * style (an injected `<style>` or `style` attribute) would apply, and nothing is loaded.
 */
const STYLE = `
:root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--text:#1c2230;--muted:#586174;--sun:#f59e0b;--sun-line:#c2410c;--grid:#e2e5ea;--on:#16a34a;--off:#9aa1ad}
@media (prefers-color-scheme:dark){:root{--bg:#10141b;--card:#19202b;--text:#e6e9ef;--muted:#9aa3b2;--sun-line:#fbbf24;--grid:#2b3341}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:46rem;margin:0 auto;padding:.75rem}
header{padding:.5rem .25rem}
h1{margin:0;font-size:1.6rem;line-height:1.2;overflow-wrap:anywhere}
h2{margin:0 0 .6rem;font-size:1.05rem}
p{margin:.3rem 0}
.muted{color:var(--muted)}
.card{background:var(--card);border-radius:.75rem;padding:1rem;margin:.75rem 0;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.75rem;margin:0}
.tiles div{margin:0}
.tiles dt{color:var(--muted);font-size:.85rem}
.tiles dd{margin:0;font-size:1.55rem;font-weight:650;font-variant-numeric:tabular-nums}
.status{display:inline-flex;align-items:center;gap:.4rem;font-size:.95rem}
.status::before{content:"";width:.65rem;height:.65rem;border-radius:50%;background:var(--off)}
.status.online::before{background:var(--on)}
.chart{display:block;width:100%;height:auto}
.chart .grid{stroke:var(--grid);stroke-width:1}
.chart .tick,.chart .value{fill:var(--muted);font-size:14px}
.chart .value{fill:var(--text)}
.chart .area{fill:var(--sun);fill-opacity:.28}
.chart .line{fill:none;stroke:var(--sun-line);stroke-width:2.5;stroke-linejoin:round}
.chart .dot{fill:var(--sun-line)}
.chart .bar{fill:var(--sun)}
.scroll{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:.4rem .5rem;border-bottom:1px solid var(--grid);text-align:left;white-space:nowrap}
th{color:var(--muted);font-weight:500;font-size:.85rem}
td.number,th.number{text-align:right}
footer{margin:1.5rem 0 1rem;text-align:center;font-size:.85rem;color:var(--muted)}
@media (max-width:30rem){main{padding:.5rem}.card{padding:.85rem}h1{font-size:1.35rem}.tiles dd{font-size:1.3rem}.chart .tick,.chart .value{font-size:20px}table{font-size:.85rem}th,td{padding:.35rem .3rem}}
`;

/** The hash that the page's Content-Security-Policy allows its style sheet by. */
export const SHARE_PAGE_STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** A sun, as the tab's icon: inline, since the page may load nothing. */
const ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='5' fill='%23f59e0b'/%3E%3C/svg%3E";

function page(title: string, body: Markup): string {
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="icon" href="${ICON}">
<style>${new Markup(STYLE)}</style>
</head>
<body>
<main>
${body}
<footer>Shared by the owner of this installation · all times UTC</footer>
</main>
</body>
</html>
`.text;
}

function unavailable(reason: string): Markup {
  return markup`<p class="muted">${reason}</p>`;
}

function nowCard(monitor: MonitorView, generatedAt: Date): Markup {
  const { latest, today } = monitor;
  const figure = (value: number | null | undefined, format: (value: number) => string) =>
    value === null || value === undefined ? '–' : format(value);
  const age = latest ? formatAge(generatedAt.getTime() - Date.parse(latest.timestamp)) : '';
  const status = latest
    ? markup`<p class="status${monitor.online ? ' online' : ''}" id="status">${monitor.online ? 'Online' : 'Offline'} · last report ${age}</p>`
    : markup`<p class="status" id="status">No report yet</p>`;
  return markup`<section class="card" aria-labelledby="now-title">
<h2 id="now-title">Now</h2>
<dl class="tiles">
<div><dt>Solar power</dt><dd id="power">${figure(latest?.solarPower, formatPower)}</dd></div>
<div><dt>Battery</dt><dd id="soc">${figure(latest?.stateOfCharge, formatPercent)}</dd></div>
<div><dt>Produced today</dt><dd id="energy-today">${figure(today.energyProducedKwh, formatKwh)}</dd></div>
<div><dt>Load</dt><dd id="load">${figure(latest?.loadPower, formatPower)}</dd></div>
</dl>
${status}
</section>`;
}

function todayCard(today: TodaySoFar): Markup {
  const from = Date.parse(today.start);
  const now = Date.parse(today.end);
  // An hour's average is drawn at its middle, or at "now" for the hour still running.
  const points = today.hours.map((hour) => ({
    at: Math.min(Date.parse(hour.timestamp) + HOUR / 2, now),
    value: hour.averageSolarPower,
  }));
  const ticks = [0, 6, 12, 18, 24].map((hours) => ({
    at: from + hours * HOUR,
    label: `${String(hours).padStart(2, '0')}:00`,
  }));
  const chart =
    points.length === 0
      ? unavailable('No data today yet.')
      : timeAreaChart({
          points,
          from,
          to: from + 24 * HOUR,
          ticks,
          formatValue: formatPowerAxis,
          title: 'Solar power today, hourly averages (UTC)',
        });
  return markup`<section class="card" aria-labelledby="today-title">
<h2 id="today-title">Solar power today</h2>
${chart}
</section>`;
}

/** The forecast's record in words: its mean error, and how much it beat repeating yesterday’s sky. */
function forecastRecordLine(record: ForecastRecord): Markup {
  const window = `the last ${record.days} days`;
  if (record.daysScored === 0 || record.solar === null)
    return markup`<p class="muted" id="forecast-record">No day-ahead forecast scored in ${window} yet.</p>`;
  const { maeW, nmae } = record.solar;
  const error = nmae === null ? formatPower(maeW) : `${(100 * nmae).toFixed(1)} % of the installed power`;
  const skill = record.vsSmartPersistence;
  const percent = skill === null ? 0 : Math.round(100 * Math.abs(skill));
  const versus =
    skill === null
      ? ''
      : `; its error (RMS) was ${percent === 0 ? 'about that' : `${percent} % ${skill > 0 ? 'smaller' : 'larger'} than that`} ` +
        `of repeating yesterday’s cloudiness`;
  const days = record.daysScored === 1 ? '1 day' : `${record.daysScored} days`;
  return markup`<p class="muted" id="forecast-record">Over ${window} (${days} scored), the day-ahead forecast was off by ${error} on average in daylight${versus}.</p>`;
}

function forecastCard(section: Section<ForecastView>, record: ForecastRecord | null): Markup {
  let content: Markup;
  if (!section.shown) content = unavailable(section.reason);
  else if (section.data.days.length === 0) content = unavailable('No forecast for the coming days yet.');
  else {
    const chart = barChart({
      bars: section.data.days.map((day) => ({
        label: formatWeekday(day.date),
        value: day.solarProductionKwh,
        valueLabel: day.solarProductionKwh.toFixed(1),
      })),
      formatValue: (value) => `${Number(value.toFixed(1))}`,
      title: 'Forecast solar production per day, kWh',
    });
    const { days, createdAt } = section.data;
    const range = `${formatDay(days[0].date)} to ${formatDay(days[days.length - 1].date)}`;
    const made = `${formatDay(createdAt.slice(0, 10))}, ${formatTime(new Date(createdAt))}`;
    content = markup`${chart}
<p class="muted">kWh per day, ${range} · forecast of ${made}</p>`;
  }
  const recordLine = record
    ? markup`
${forecastRecordLine(record)}`
    : null;
  return markup`<section class="card" aria-labelledby="forecast-title">
<h2 id="forecast-title">Forecast, next 7 days</h2>
${content}${recordLine}
</section>`;
}

function returnsCard(section: Section<RoiSummary>): Markup {
  let content: Markup;
  if (!section.shown) content = unavailable(section.reason);
  else {
    const roi = section.data;
    const money = (amount: number) => formatMoney(amount, roi.currency);
    const payback = roi.paybackPeriodYears > 0 ? `${roi.paybackPeriodYears.toFixed(1)} years` : '–';
    const investment = roi.hasInvestmentData
      ? markup`
<div><dt>Return so far</dt><dd>${formatPercent(roi.roiPercentage)}</dd></div>
<div><dt>Payback</dt><dd>${payback}</dd></div>`
      : null;
    const since = roi.firstDataDate
      ? markup`
<p class="muted">Since ${formatDay(roi.firstDataDate.slice(0, 10))}</p>`
      : null;
    content = markup`<dl class="tiles">
<div><dt>Saved so far</dt><dd id="savings">${money(roi.totalSavings)}</dd></div>
<div><dt>Energy produced</dt><dd>${formatKwh(roi.totalEnergyProducedKwh)}</dd></div>
<div><dt>Per month</dt><dd>${money(roi.monthlyAvgSavings)}</dd></div>${investment}
</dl>${since}`;
  }
  return markup`<section class="card" aria-labelledby="returns-title">
<h2 id="returns-title">Savings</h2>
${content}
</section>`;
}

function weatherCard(section: Section<WeatherRecord[]>): Markup {
  const degrees = (value: number | null) => (value === null ? '–' : `${Math.round(value)} °C`);
  const rain = (value: number | null) => (value === null ? '–' : `${value.toFixed(1)} mm`);
  let content: Markup;
  if (!section.shown) content = unavailable(section.reason);
  else if (section.data.length === 0) content = unavailable('No weather forecast yet.');
  else {
    const rows = section.data.map(
      (day) =>
        markup`<tr><td>${formatShortDay(day.date)}</td><td>${describeWeather(day.weatherCode)}</td><td class="number">${degrees(day.temperatureMax)}</td><td class="number">${degrees(day.temperatureMin)}</td><td class="number">${rain(day.precipitationSum)}</td></tr>
`,
    );
    content = markup`<div class="scroll"><table>
<thead><tr><th>Day</th><th>Sky</th><th class="number">High</th><th class="number">Low</th><th class="number">Rain</th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>`;
  }
  return markup`<section class="card" aria-labelledby="weather-title">
<h2 id="weather-title">Weather</h2>
${content}
</section>`;
}

function monitorCards(view: SharePageView): Markup | null {
  if (!view.monitor) return null;
  if (!view.monitor.shown)
    return markup`<section class="card"><h2>Now</h2>${unavailable(view.monitor.reason)}</section>`;
  return markup`${nowCard(view.monitor.data, view.generatedAt)}
${todayCard(view.monitor.data.today)}`;
}

/** The share page of one source: what its owner shares, as HTML without script. */
export function renderSharePage(view: SharePageView): string {
  const capacity =
    view.installedCapacityWatts === null ? null : `${formatPower(view.installedCapacityWatts)} installed · `;
  const description = view.description
    ? markup`
<p id="description">${view.description}</p>`
    : null;
  const sections = [
    monitorCards(view),
    view.forecast ? forecastCard(view.forecast, view.forecastRecord ?? null) : null,
    view.returns ? returnsCard(view.returns) : null,
    view.weather ? weatherCard(view.weather) : null,
  ].filter((section): section is Markup => section !== null);
  const body = markup`<header>
<h1 id="name">${view.name}</h1>${description}
<p class="muted">${capacity}updated ${formatTime(view.generatedAt)}</p>
</header>
${sections.map(
  (section) => markup`${section}
`,
)}`;
  return page(`${view.name} · solar`, body);
}

/** One page for "not shared" and "no such source": a stranger learns nothing from it. */
export function renderNotFoundPage(): string {
  return page(
    'Not found · solar',
    markup`<header><h1>Not found</h1></header>
<section class="card"><p>This installation is not shared, or the address is wrong.</p></section>
`,
  );
}
