const DAY_MS = 86_400_000;

/**
 * When a trained model is due to be trained again (docs/forecasting.md, "Training again"): once
 * it is 30 days old while it was trained on fewer than 330 days of hours (a young source's model
 * has seen one season, and each month adds what it has not), and once it is a year old, whatever
 * it was trained on. Trained on a full year, monthly training again measured about the same as
 * once, so such a model waits the year. A model whose training again failed (its history deleted,
 * say) is tried again after `retryAfterFailureDays`, so that models that keep failing do not take
 * every run's trainings from the others.
 */
export const RETRAINING_RULE = {
  youngAfterDays: 30,
  fullYearHours: 330 * 24,
  anyAfterDays: 365,
  retryAfterFailureDays: 30,
} as const;

/** The rule in words, for what prints it. */
export function describeRetrainingRule(): string {
  const { youngAfterDays, fullYearHours, anyAfterDays } = RETRAINING_RULE;
  return (
    `a model ${youngAfterDays} days old trained on less than ${fullYearHours / 24} days, ` +
    `or ${anyAfterDays} days old`
  );
}

/** The moments that decide, at `now`, whether a model is due: see `RETRAINING_RULE`. */
export function retrainingCutoffs(now: Date): {
  youngTrainedBefore: Date;
  anyTrainedBefore: Date;
  failedBefore: Date;
} {
  const daysBefore = (days: number) => new Date(now.getTime() - days * DAY_MS);
  return {
    youngTrainedBefore: daysBefore(RETRAINING_RULE.youngAfterDays),
    anyTrainedBefore: daysBefore(RETRAINING_RULE.anyAfterDays),
    failedBefore: daysBefore(RETRAINING_RULE.retryAfterFailureDays),
  };
}

/** Whether a model trained at `trainedAt` on `dataPointsUsed` hours is due to be trained again at `now`. */
export function retrainingDue(trainedAt: Date, dataPointsUsed: number, now: Date): boolean {
  const { youngTrainedBefore, anyTrainedBefore } = retrainingCutoffs(now);
  return (
    (trainedAt <= youngTrainedBefore && dataPointsUsed < RETRAINING_RULE.fullYearHours) ||
    trainedAt <= anyTrainedBefore
  );
}
