import { DataError } from './data-error';
import type { HourlySeries } from './data-files';

/**
 * Whether an hourly series can be scored at all: long enough for the forecast's 15 days of
 * history, a training range and days to score, and with most of its hours present. Each reader's
 * series goes through here, so thin data is an error that says why instead of a table of dashes.
 */

const HOUR_MS = 3_600_000;
/** 15 days of history before the first scored day, about as many to train on, and days to score. */
export const MIN_DAYS = 30;
/** Share of the hours between the first and the last that must be present. */
export const MIN_HOUR_SHARE = 0.5;

export interface Coverage {
  hours: number;
  /** Start of the first and of the last hour present, ms. */
  first: number;
  last: number;
  /** Hours from the first to the last, both included. */
  spanHours: number;
  /** Runs of missing hours, and the longest, in hours. */
  gaps: number;
  longestGapHours: number;
}

const utcTime = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

export function coverage(series: HourlySeries): Coverage | null {
  const hours = [...series.keys()].sort((a, b) => a - b);
  if (hours.length === 0) return null;
  let gaps = 0;
  let longestGapHours = 0;
  for (let index = 1; index < hours.length; index++) {
    const missing = Math.round((hours[index] - hours[index - 1]) / HOUR_MS) - 1;
    if (missing <= 0) continue;
    gaps++;
    longestGapHours = Math.max(longestGapHours, missing);
  }
  const first = hours[0];
  const last = hours[hours.length - 1];
  return {
    hours: hours.length,
    first,
    last,
    spanHours: Math.round((last - first) / HOUR_MS) + 1,
    gaps,
    longestGapHours,
  };
}

/**
 * The coverage of `series` (`what`: "PV", "load"), or a `DataError` saying why it cannot be
 * scored: no hour at all, under `MIN_DAYS` days, or under `MIN_HOUR_SHARE` of its hours present.
 * `hourRule` says when an hour counts as present, for the message.
 */
export function checkCoverage(series: HourlySeries, what: string, hourRule: string): Coverage {
  const found = coverage(series);
  if (!found) throw new DataError(`no hour has ${what}: ${hourRule}`);
  const days = found.spanHours / 24;
  // From the start of the first hour to the end of the last, in UTC: UTC dates alone read as a day
  // more than a file east of UTC covers.
  const range = `${utcTime(found.first)} to ${utcTime(found.last + HOUR_MS)} UTC`;
  if (days < MIN_DAYS)
    throw new DataError(
      `too short: ${what} covers ${days.toFixed(1)} days (${range}); scoring needs at least ${MIN_DAYS} ` +
        `(15 days of history before each forecast, days to train on and days to score)`,
    );
  const share = found.hours / found.spanHours;
  if (share < MIN_HOUR_SHARE)
    throw new DataError(
      `too sparse: only ${(100 * share).toFixed(0)} % of the hours from ${range} have ${what} ` +
        `(${found.gaps} ${found.gaps === 1 ? 'gap' : 'gaps'}, the longest ${found.longestGapHours} h; ${hourRule}); ` +
        `scoring needs at least ${100 * MIN_HOUR_SHARE} %`,
    );
  return found;
}
