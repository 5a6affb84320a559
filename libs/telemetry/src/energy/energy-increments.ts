/**
 * How the energy of a UTC day is counted, one reading at a time, for each direction: produced
 * (counter `dailyEnergyProduced`, power `solarPower`) and consumed (`dailyEnergyConsumed`,
 * `loadPower`). Every reading carries the energy since the previous reading of its field, which
 * may lie before the range asked about; a day's energy is the sum over its readings in the range.
 *
 * The database does the same in SQL (`telemetry_counter_increment` and
 * `telemetry_power_increment`, created by the migration that rolls up energy increments), over
 * the hourly rollup; the two are tested to agree.
 */

const DAY_MS = 86_400_000;

/** Power readings further apart than this are a gap: no energy is assumed across it. */
export const POWER_GAP_MS = 15 * 60_000;

/** What a day's energy was counted from: the device's energy counter, or its power over time. */
export type EnergyMethod = 'counter' | 'power';

/** A period of several days (an ISO week, an export) whose days were not all counted alike. */
export type CombinedEnergyMethod = EnergyMethod | 'mixed';

/** One reading of a field: when (ms since the epoch) and its value (kWh for a counter, W for power). */
export interface Reading {
  at: number;
  value: number;
}

const dayOf = (at: number) => Math.floor(at / DAY_MS);

/**
 * The energy (kWh) a counter reading carries, given the counter's previous reading.
 * - Previous reading the same day: the rise since it; a drop is a restart of the counter (a
 *   reboot), whose new value is all new energy.
 * - Previous reading the day before (this is the day's first reading): a daily counter restarts
 *   at midnight, so a lower reading counts whole. A counter that did not drop kept counting across
 *   midnight (a lifetime counter, or one restarting at another hour): the reading counts nothing,
 *   and the day gets only the rises between its own readings.
 * - No reading the same day or the day before: the reading counts whole, as a daily counter's
 *   first reading does.
 */
export function counterIncrement(previous: Reading | undefined, reading: Reading): number {
  if (previous === undefined) return reading.value;
  const days = dayOf(reading.at) - dayOf(previous.at);
  if (days > 1) return reading.value;
  if (days === 0) return reading.value >= previous.value ? reading.value - previous.value : reading.value;
  return reading.value < previous.value ? reading.value : 0;
}

/**
 * The energy (kWh) a power reading (W) carries, given the field's previous reading: the
 * trapezoid between the two when they lie in the same UTC day at most POWER_GAP_MS apart; null
 * (nothing known) across a longer gap or across midnight.
 */
export function powerIncrement(previous: Reading | undefined, reading: Reading): number | null {
  if (previous === undefined || dayOf(previous.at) !== dayOf(reading.at)) return null;
  const seconds = (reading.at - previous.at) / 1000;
  if (seconds > POWER_GAP_MS / 1000) return null;
  return (((previous.value + reading.value) / 2) * seconds) / 3_600_000;
}

/** The last readings before a range that its first readings count from, per direction; null for none. */
export interface EnergyReadingsBefore {
  produced: { counter: Reading | null; power: Reading | null };
  consumed: { counter: Reading | null; power: Reading | null };
}

export const NO_READINGS_BEFORE: EnergyReadingsBefore = {
  produced: { counter: null, power: null },
  consumed: { counter: null, power: null },
};

/** The energy of one UTC day in one direction. */
export interface DayEnergy {
  /** Days since the epoch. */
  day: number;
  /** kWh; null when the day has no counter reading and no interval of power could be integrated. */
  kwh: number | null;
  method: EnergyMethod | null;
}

interface DayTally {
  day: number;
  counterReadings: number;
  counterKwh: number;
  /** NaN until an interval of power is integrated. */
  powerKwh: number;
}

/**
 * The daily energy of one direction from its readings, given in time order: the counter's when
 * the day has a counter reading, else the integral of power, else none. `before` holds the last
 * readings before the first one given, which the first ones count from.
 */
export class DailyEnergyTally {
  private readonly tallies: DayTally[] = [];
  private counter: Reading | undefined;
  private power: Reading | undefined;
  private last = Number.NEGATIVE_INFINITY;

  constructor(before: { counter?: Reading | null; power?: Reading | null } = {}) {
    this.counter = before.counter ?? undefined;
    this.power = before.power ?? undefined;
  }

  /** One record: its time, and its counter (kWh) and power (W), NaN where it has none. */
  add(at: number, counter: number, power: number): void {
    const hasCounter = Number.isFinite(counter);
    const hasPower = Number.isFinite(power);
    if (!hasCounter && !hasPower) return;
    if (at <= this.last) throw new Error('Energy readings must come in time order');
    this.last = at;
    const tally = this.dayTally(dayOf(at));
    if (hasCounter) {
      const reading = { at, value: counter };
      tally.counterKwh += counterIncrement(this.counter, reading);
      tally.counterReadings++;
      this.counter = reading;
    }
    if (hasPower) {
      const reading = { at, value: power };
      const kwh = powerIncrement(this.power, reading);
      if (kwh !== null) tally.powerKwh = (Number.isNaN(tally.powerKwh) ? 0 : tally.powerKwh) + kwh;
      this.power = reading;
    }
  }

  /** The days with a reading, oldest first. */
  days(): DayEnergy[] {
    return this.tallies.map((tally) => {
      if (tally.counterReadings > 0) return { day: tally.day, kwh: tally.counterKwh, method: 'counter' };
      if (!Number.isNaN(tally.powerKwh)) return { day: tally.day, kwh: tally.powerKwh, method: 'power' };
      return { day: tally.day, kwh: null, method: null };
    });
  }

  private dayTally(day: number): DayTally {
    const latest = this.tallies[this.tallies.length - 1];
    if (latest?.day === day) return latest;
    const tally = { day, counterReadings: 0, counterKwh: 0, powerKwh: Number.NaN };
    this.tallies.push(tally);
    return tally;
  }
}

/** The method of a period from its days': theirs when they agree, `mixed` when not, null when none has one. */
export function combinedMethod(
  methods: ReadonlyArray<CombinedEnergyMethod | null>,
): CombinedEnergyMethod | null {
  let combined: CombinedEnergyMethod | null = null;
  for (const method of methods) {
    if (method === null) continue;
    if (combined === null) combined = method;
    else if (combined !== method) return 'mixed';
  }
  return combined;
}
