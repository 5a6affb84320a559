/** Day and rounding arithmetic of the ROI calculation (internal: not exported from the lib). */
export const DAY_MS = 86_400_000;
/** A year of 365.25 days (leap years included) and its twelfth, 30.4375 days. */
export const DAYS_PER_YEAR = 365.25;
export const DAYS_PER_MONTH = DAYS_PER_YEAR / 12;

/** UTC midnight starting the day of `time`, in epoch milliseconds. */
export function startOfUtcDay(time: Date): number {
  return Math.floor(time.getTime() / DAY_MS) * DAY_MS;
}

/**
 * Rounds half away from zero to `places` decimals. The product is first cut to 15 significant
 * digits, so a binary artefact (1.005 × 100 = 100.49999999999999) rounds as the decimal would.
 */
export function roundTo(value: number, places: number): number {
  const scale = 10 ** places;
  const scaled = Number((Math.abs(value) * scale).toPrecision(15));
  return (Math.sign(value) * Math.round(scaled)) / scale + 0;
}
