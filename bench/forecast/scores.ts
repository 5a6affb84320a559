import {
  dailyClearSkyIndex,
  ErrorStats,
  errorStats,
  skillScore,
  SolarErrors,
  solarErrors,
} from '../../libs/forecast/src/evaluation';
import type { ScoredHour, Setting } from './replay';
import { shiftDate } from './time-zones';

/**
 * The scores per month and overall, the tables the benchmark prints and the week it plots, with
 * the metrics of `libs/forecast/src/evaluation`. A figure that cannot be computed is `null` and
 * printed as a dash, never NaN.
 */

export interface SolarRow {
  label: string;
  hours: number;
  model: SolarErrors;
  smartPersistence: SolarErrors;
  baseline: SolarErrors;
  fittedPhysics: SolarErrors | null;
}

/**
 * The hours solar is scored on in a setting: daytime hours with a measurement, a model forecast,
 * a baseline and a smart-persistence value, so every forecast is scored on the same hours.
 */
export function scorableSolarHours(hours: readonly ScoredHour[], setting: Setting): ScoredHour[] {
  return hours.filter(
    (hour) =>
      hour.daylight &&
      Number.isFinite(hour.solar) &&
      Number.isFinite(hour.smartPersistence) &&
      Number.isFinite(hour.modelSolar[setting]) &&
      Number.isFinite(hour.baselineSolar[setting]),
  );
}

/** Why daytime hours were not scored, for the report (and the error when none is left). */
export function solarCoverage(hours: readonly ScoredHour[], setting: Setting) {
  const daytime = hours.filter((hour) => hour.daylight);
  const measured = daytime.filter((hour) => Number.isFinite(hour.solar));
  return {
    daytime: daytime.length,
    measured: measured.length,
    withPersistence: measured.filter((hour) => Number.isFinite(hour.smartPersistence)).length,
    scored: scorableSolarHours(hours, setting).length,
  };
}

/** The hours grouped by a key (their month, their day), in the order the keys first appear. */
function groupBy(hours: readonly ScoredHour[], key: (hour: ScoredHour) => string): [string, ScoredHour[]][] {
  const groups = new Map<string, ScoredHour[]>();
  for (const hour of hours) {
    const name = key(hour);
    const group = groups.get(name);
    if (group) group.push(hour);
    else groups.set(name, [hour]);
  }
  return [...groups];
}

const byMonth = (hours: readonly ScoredHour[]) => groupBy(hours, (hour) => hour.month);

/** One row per month with scorable hours, then `overall`; empty when there is no such hour. */
export function solarRows(hours: readonly ScoredHour[], setting: Setting, capacityWatts: number): SolarRow[] {
  const usable = scorableSolarHours(hours, setting);
  const row = (label: string, group: ScoredHour[]): SolarRow => {
    const score = (value: (hour: ScoredHour) => number) =>
      solarErrors(
        group.map((hour) => [value(hour), hour.solar] as const),
        capacityWatts,
      )!;
    const physics = setting === 'weather' && group.every((hour) => Number.isFinite(hour.fittedPhysics));
    return {
      label,
      hours: group.length,
      model: score((hour) => hour.modelSolar[setting]),
      smartPersistence: score((hour) => hour.smartPersistence),
      baseline: score((hour) => hour.baselineSolar[setting]),
      fittedPhysics: physics ? score((hour) => hour.fittedPhysics) : null,
    };
  };
  if (usable.length === 0) return [];
  return [...byMonth(usable).map(([month, group]) => row(month, group)), row('overall', usable)];
}

export interface LoadRow {
  label: string;
  hours: number;
  model: ErrorStats;
  sameAsYesterday: ErrorStats;
  baseline: ErrorStats;
}

export function scorableLoadHours(hours: readonly ScoredHour[], setting: Setting): ScoredHour[] {
  return hours.filter(
    (hour) =>
      Number.isFinite(hour.load) &&
      Number.isFinite(hour.sameAsYesterday) &&
      Number.isFinite(hour.modelLoad[setting]) &&
      Number.isFinite(hour.baselineLoad[setting]),
  );
}

/** All hours of load (it has no night); one row per month, then `overall`; empty without any. */
export function loadRows(hours: readonly ScoredHour[], setting: Setting): LoadRow[] {
  const usable = scorableLoadHours(hours, setting);
  const row = (label: string, group: ScoredHour[]): LoadRow => {
    const score = (value: (hour: ScoredHour) => number) =>
      errorStats(group.map((hour) => [value(hour), hour.load] as const))!;
    return {
      label,
      hours: group.length,
      model: score((hour) => hour.modelLoad[setting]),
      sameAsYesterday: score((hour) => hour.sameAsYesterday),
      baseline: score((hour) => hour.baselineLoad[setting]),
    };
  };
  if (usable.length === 0) return [];
  return [...byMonth(usable).map(([month, group]) => row(month, group)), row('overall', usable)];
}

/** How persistent the scored days' weather was (`weatherPersistence`). */
export interface WeatherPersistence {
  /** Consecutive scored days that both have a daily clear-sky index. */
  pairs: number;
  meanIndex: number;
  /** r: the correlation of a day's clear-sky index with the day before's. */
  correlation: number;
  /** 1 − √((1 + r) / 2). */
  linearSkillOverPersistence: number;
}

/** Fewer pairs of days than this and a correlation says little: no figure. */
const MIN_PERSISTENCE_PAIRS = 10;

/**
 * How persistent the scored days' weather was, which bounds what a forecast without weather can
 * gain on smart persistence: where a day's clear-sky index follows the day before's closely (a
 * foggy winter), repeating it is hard to beat. For an index with a steady mean and a correlation r
 * between consecutive days, the best linear forecast of a day's index from the day before's
 * (mean + r × yesterday's departure from it) has a mean squared error (1 + r) / 2 times that of
 * repeating yesterday's, so its skill over repeating it is 1 − √((1 + r) / 2): 0.29 at r = 0,
 * 0.13 at r = 0.5. It is a figure for the daily index; hours add errors neither foresees. Null
 * with fewer than 10 pairs of days or an index that never changes.
 */
export function weatherPersistence(hours: readonly ScoredHour[]): WeatherPersistence | null {
  const indices = groupBy(hours, (hour) => hour.date).map(([date, day]) => ({
    date,
    index: dailyClearSkyIndex(
      day.map((hour) => hour.solar),
      day.map((hour) => hour.clearSky),
    ),
  }));
  const before: number[] = [];
  const after: number[] = [];
  for (let day = 1; day < indices.length; day++) {
    const [previous, current] = [indices[day - 1], indices[day]];
    if (previous.index === null || current.index === null) continue;
    if (current.date !== shiftDate(previous.date, 1)) continue;
    before.push(previous.index);
    after.push(current.index);
  }
  const pairs = before.length;
  if (pairs < MIN_PERSISTENCE_PAIRS) return null;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const [meanBefore, meanAfter] = [mean(before), mean(after)];
  let covariance = 0;
  let varianceBefore = 0;
  let varianceAfter = 0;
  for (let pair = 0; pair < pairs; pair++) {
    const [x, y] = [before[pair] - meanBefore, after[pair] - meanAfter];
    covariance += x * y;
    varianceBefore += x * x;
    varianceAfter += y * y;
  }
  if (!(varianceBefore > 0 && varianceAfter > 0)) return null;
  const correlation = covariance / Math.sqrt(varianceBefore * varianceAfter);
  return {
    pairs,
    meanIndex: mean(after),
    correlation,
    linearSkillOverPersistence: 1 - Math.sqrt((1 + correlation) / 2),
  };
}

/**
 * The first local date of the week to plot: of the 7-day windows starting on each scored day in
 * which at least half the `eligible` hours (daytime for solar) are scorable, the one whose RMSE is
 * the median; null when no window qualifies.
 */
export function typicalWeek(
  all: readonly ScoredHour[],
  scorable: readonly ScoredHour[],
  eligible: (hour: ScoredHour) => boolean,
  forecastOf: (hour: ScoredHour) => number,
  measuredOf: (hour: ScoredHour) => number,
): string | null {
  const dates = [...new Set(all.map((hour) => hour.date))];
  const candidates: { date: string; rmse: number }[] = [];
  for (let start = 0; start + 7 <= dates.length; start++) {
    const [from, to] = [dates[start], dates[start + 6]];
    const inWeek = (hour: ScoredHour) => hour.date >= from && hour.date <= to;
    const week = scorable.filter(inWeek);
    if (week.length === 0 || week.length < 0.5 * all.filter((hour) => inWeek(hour) && eligible(hour)).length)
      continue;
    const stats = errorStats(week.map((hour) => [forecastOf(hour), measuredOf(hour)] as const));
    if (stats) candidates.push({ date: from, rmse: stats.rmse });
  }
  if (candidates.length === 0) return null;
  const sorted = [...candidates].sort((a, b) => a.rmse - b.rmse || a.date.localeCompare(b.date));
  return sorted[Math.floor((sorted.length - 1) / 2)].date;
}

const percent = (value: number | null | undefined) =>
  value !== null && value !== undefined && Number.isFinite(value) ? `${(100 * value).toFixed(1)}%` : '—';
const fixed = (value: number | null | undefined, digits = 0) =>
  value !== null && value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '—';
/** Three decimals, and `0.000` rather than `-0.000` for a value that rounds to zero from below. */
export function threeDecimals(value: number): string {
  const text = value.toFixed(3);
  return text === '-0.000' ? '0.000' : text;
}

/** A skill for a table column: three decimals, a space where a minus would be. */
export function signed(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '—';
  const text = threeDecimals(value);
  return text.startsWith('-') ? text : ` ${text}`;
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) => cells.map((cell, column) => cell.padStart(widths[column])).join('  ');
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function solarTable(rows: SolarRow[]): string {
  const withPhysics = rows.some((row) => row.fittedPhysics);
  const headers = [
    'month',
    'hours',
    'MAE W',
    'RMSE W',
    'nMAE',
    'nRMSE',
    'SP nRMSE',
    'base nRMSE',
    ...(withPhysics ? ['phys nRMSE'] : []),
    'skill/SP',
    'skill/base',
    ...(withPhysics ? ['skill/phys'] : []),
  ];
  return table(
    headers,
    rows.map((row) => [
      row.label,
      String(row.hours),
      fixed(row.model.mae),
      fixed(row.model.rmse),
      percent(row.model.nmae),
      percent(row.model.nrmse),
      percent(row.smartPersistence.nrmse),
      percent(row.baseline.nrmse),
      ...(withPhysics ? [percent(row.fittedPhysics?.nrmse)] : []),
      signed(skillScore(row.model, row.smartPersistence)),
      signed(skillScore(row.model, row.baseline)),
      ...(withPhysics ? [signed(row.fittedPhysics ? skillScore(row.model, row.fittedPhysics) : null)] : []),
    ]),
  );
}

export function loadTable(rows: LoadRow[]): string {
  return table(
    ['month', 'hours', 'MAE W', 'RMSE W', 'SaY RMSE W', 'base RMSE W', 'skill/SaY', 'skill/base'],
    rows.map((row) => [
      row.label,
      String(row.hours),
      fixed(row.model.mae),
      fixed(row.model.rmse),
      fixed(row.sameAsYesterday.rmse),
      fixed(row.baseline.rmse),
      signed(skillScore(row.model, row.sameAsYesterday)),
      signed(skillScore(row.model, row.baseline)),
    ]),
  );
}
