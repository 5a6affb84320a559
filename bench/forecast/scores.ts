import type { ScoredHour, Setting } from './replay';

/** Error statistics over a set of hours, and the tables the benchmark prints. */

export interface Errors {
  count: number;
  mae: number;
  rmse: number;
}

export function errors(pairs: readonly [number, number][]): Errors {
  let absolute = 0;
  let squared = 0;
  for (const [forecast, actual] of pairs) {
    absolute += Math.abs(forecast - actual);
    squared += (forecast - actual) ** 2;
  }
  const count = pairs.length;
  return { count, mae: count ? absolute / count : NaN, rmse: count ? Math.sqrt(squared / count) : NaN };
}

/** 1 − RMSE / RMSE of the reference, over the same hours. */
export const skill = (model: Errors, reference: Errors) => 1 - model.rmse / reference.rmse;

export interface SolarRow {
  label: string;
  hours: number;
  model: Errors;
  smartPersistence: Errors;
  baseline: Errors;
  fittedPhysics: Errors | null;
}

/**
 * Solar over daylight hours (mean solar elevation above 0) that have a measurement and a smart
 * persistence value, so every forecast is scored on exactly the same hours.
 */
export function solarRows(hours: readonly ScoredHour[], setting: Setting): SolarRow[] {
  const usable = hours.filter(
    (hour) =>
      hour.daylight &&
      Number.isFinite(hour.solar) &&
      Number.isFinite(hour.smartPersistence) &&
      Number.isFinite(hour.modelSolar[setting]) &&
      Number.isFinite(hour.baselineSolar[setting]),
  );
  const groups = new Map<string, ScoredHour[]>();
  for (const hour of usable) groups.set(hour.month, [...(groups.get(hour.month) ?? []), hour]);
  const row = (label: string, group: ScoredHour[]): SolarRow => {
    const physics = group.every((hour) => Number.isFinite(hour.fittedPhysics)) && setting === 'weather';
    return {
      label,
      hours: group.length,
      model: errors(group.map((hour) => [hour.modelSolar[setting], hour.solar])),
      smartPersistence: errors(group.map((hour) => [hour.smartPersistence, hour.solar])),
      baseline: errors(group.map((hour) => [hour.baselineSolar[setting], hour.solar])),
      fittedPhysics: physics ? errors(group.map((hour) => [hour.fittedPhysics, hour.solar])) : null,
    };
  };
  return [...[...groups].map(([month, group]) => row(month, group)), row('overall', usable)];
}

export interface LoadRow {
  label: string;
  hours: number;
  model: Errors;
  sameAsYesterday: Errors;
  baseline: Errors;
}

export function loadRows(hours: readonly ScoredHour[], setting: Setting): LoadRow[] {
  const usable = hours.filter(
    (hour) =>
      Number.isFinite(hour.load) &&
      Number.isFinite(hour.sameAsYesterday) &&
      Number.isFinite(hour.modelLoad[setting]),
  );
  const groups = new Map<string, ScoredHour[]>();
  for (const hour of usable) groups.set(hour.month, [...(groups.get(hour.month) ?? []), hour]);
  const row = (label: string, group: ScoredHour[]): LoadRow => ({
    label,
    hours: group.length,
    model: errors(group.map((hour) => [hour.modelLoad[setting], hour.load])),
    sameAsYesterday: errors(group.map((hour) => [hour.sameAsYesterday, hour.load])),
    baseline: errors(group.map((hour) => [hour.baselineLoad[setting], hour.load])),
  });
  return [...[...groups].map(([month, group]) => row(month, group)), row('overall', usable)];
}

const percent = (value: number) => (Number.isFinite(value) ? `${(100 * value).toFixed(1)}%` : '—');
const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const signed = (value: number) => (Number.isFinite(value) ? (value >= 0 ? ' ' : '') + value.toFixed(3) : '—');

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) => cells.map((cell, column) => cell.padStart(widths[column])).join('  ');
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function solarTable(rows: SolarRow[], capacity: number): string {
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
      percent(row.model.mae / capacity),
      percent(row.model.rmse / capacity),
      percent(row.smartPersistence.rmse / capacity),
      percent(row.baseline.rmse / capacity),
      ...(withPhysics ? [percent((row.fittedPhysics?.rmse ?? NaN) / capacity)] : []),
      signed(skill(row.model, row.smartPersistence)),
      signed(skill(row.model, row.baseline)),
      ...(withPhysics ? [signed(row.fittedPhysics ? skill(row.model, row.fittedPhysics) : NaN)] : []),
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
      signed(skill(row.model, row.sameAsYesterday)),
      signed(skill(row.model, row.baseline)),
    ]),
  );
}
