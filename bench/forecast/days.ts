import { DataError } from './data-error';
import type { HourlySeries } from './data-files';
import { localDate, localDateStart, localDaysSpan, shiftDate } from './time-zones';

/**
 * The training and scored days of a run: as given, or from the data (the last third of its local
 * days scored, at least 7, every day before them trained on), and checked against the data so a
 * range without hours is an error instead of an empty table.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Training on less than this many days of hours is not a model worth scoring. */
export const MIN_TRAINING_HOURS = 14 * 24;
export const MIN_SCORED_DAYS = 7;

export interface Days {
  train: [string, string];
  score: [string, string];
}

const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;

/** Hours of `series` in the local days [from, to]. */
function hoursIn(series: HourlySeries[], range: [string, string], timeZone: string): number {
  const [start, end] = localDaysSpan(range, timeZone);
  const hours = new Set<number>();
  for (const one of series) for (const hour of one.keys()) if (hour >= start && hour < end) hours.add(hour);
  return hours.size;
}

export function chooseDays(
  series: HourlySeries[],
  timeZone: string,
  given: { train: [string, string] | null; score: [string, string] | null },
): Days {
  let first = Infinity;
  let last = -Infinity;
  for (const one of series)
    for (const hour of one.keys()) {
      first = Math.min(first, hour);
      last = Math.max(last, hour);
    }
  if (!Number.isFinite(first)) throw new DataError('no hour with data');
  // Whole local days only: a first or last day the data starts or ends within is left out.
  let firstDate = localDate(first, timeZone);
  if (localDateStart(firstDate, timeZone) < first) firstDate = shiftDate(firstDate, 1);
  let lastDate = localDate(last, timeZone);
  if (last + HOUR_MS < localDateStart(shiftDate(lastDate, 1), timeZone)) lastDate = shiftDate(lastDate, -1);
  const total = daysBetween(firstDate, lastDate);
  const span = `the data's whole local days run ${firstDate} to ${lastDate}`;

  let score = given.score;
  let train = given.train;
  if (!score) {
    const from = train
      ? shiftDate(train[1], 1)
      : shiftDate(lastDate, 1 - Math.max(MIN_SCORED_DAYS, Math.floor(total / 3)));
    if (from > lastDate) throw new DataError(`no day left to score after the training days (${span})`);
    score = [from, lastDate];
  }
  if (!train) {
    const to = shiftDate(score[0], -1);
    if (to < firstDate) throw new DataError(`no day left to train on before ${score[0]} (${span})`);
    train = [firstDate, to];
  }
  const trainingHours = hoursIn(series, train, timeZone);
  if (trainingHours < MIN_TRAINING_HOURS)
    throw new DataError(
      `the training days ${train.join(' to ')} hold ${trainingHours} hours with data; training needs at least ` +
        `${MIN_TRAINING_HOURS} (14 days) (${span})`,
    );
  if (hoursIn(series, score, timeZone) === 0)
    throw new DataError(`the scored days ${score.join(' to ')} hold no hour with data (${span})`);
  return { train, score };
}
