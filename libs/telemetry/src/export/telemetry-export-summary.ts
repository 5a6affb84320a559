import { NUMERIC_FIELDS, NumericField } from '../telemetry-fields';

export interface FieldStatistics {
  field: NumericField;
  unit: string;
  /** Records in which the field has a value. */
  count: number;
  /** null when the field never had a value. */
  average: number | null;
  minimum: number | null;
  maximum: number | null;
}

export interface ExportSummary {
  recordCount: number;
  firstTimestamp: Date | null;
  lastTimestamp: Date | null;
  /** Sum over UTC days of the day's highest `dailyEnergyProduced`; null without any value. */
  energyProduced: number | null;
  /** Sum over UTC days of the day's highest `dailyEnergyConsumed`; null without any value. */
  energyConsumed: number | null;
  /** Every numeric field, in field-table order. */
  fields: FieldStatistics[];
}

const DAY_MS = 86_400_000;
// Module constants, not property reads in the loops below: this runs for every record.
const FIELD_COUNT = NUMERIC_FIELDS.length;
const PRODUCED = NUMERIC_FIELDS.findIndex((field) => field.name === 'dailyEnergyProduced');
const CONSUMED = NUMERIC_FIELDS.findIndex((field) => field.name === 'dailyEnergyConsumed');

/**
 * The figures of the Excel `Summary` sheet, gathered one record at a time while the records
 * stream past, so no second query and no record kept in memory: per numeric field a count,
 * sum, minimum and maximum, and per UTC day the highest daily energy counters.
 *
 * The energy totals read the devices' "today" counters, which restart every day: the day's
 * highest reading is that day's energy, and the totals add the days up. Days follow UTC, the
 * time zone of every timestamp the service keeps.
 */
export class TelemetryExportSummary {
  private recordCount = 0;
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private readonly counts = new Float64Array(FIELD_COUNT);
  // Neumaier-compensated sums: 500,000 additions must not drift the averages.
  private readonly sums = new Float64Array(FIELD_COUNT);
  private readonly compensations = new Float64Array(FIELD_COUNT);
  private readonly minima = new Float64Array(FIELD_COUNT).fill(Number.POSITIVE_INFINITY);
  private readonly maxima = new Float64Array(FIELD_COUNT).fill(Number.NEGATIVE_INFINITY);
  /** UTC day number → [highest dailyEnergyProduced, highest dailyEnergyConsumed] (NaN: none). */
  private readonly days = new Map<number, [number, number]>();
  /** The day of the latest record and its entry in `days`: records mostly come in order. */
  private today = Number.NaN;
  private todayHighest: [number, number] = [Number.NaN, Number.NaN];

  /**
   * One record: its time (ms since the epoch) and its numbers in NUMERIC_FIELDS order, NaN
   * where it has none (a typed array: no boxing on the hot path).
   */
  add(epochMs: number, numbers: ArrayLike<number>): void {
    this.recordCount++;
    if (epochMs < this.first) this.first = epochMs;
    if (epochMs > this.last) this.last = epochMs;

    for (let field = 0; field < FIELD_COUNT; field++) {
      const value = numbers[field];
      if (!Number.isFinite(value)) continue;
      this.counts[field]++;
      const sum = this.sums[field];
      const next = sum + value;
      this.compensations[field] += Math.abs(sum) >= Math.abs(value) ? sum - next + value : value - next + sum;
      this.sums[field] = next;
      if (value < this.minima[field]) this.minima[field] = value;
      if (value > this.maxima[field]) this.maxima[field] = value;
    }

    const produced = numbers[PRODUCED];
    const consumed = numbers[CONSUMED];
    if (Number.isFinite(produced) || Number.isFinite(consumed)) {
      const day = Math.floor(epochMs / DAY_MS);
      if (day !== this.today) {
        this.today = day;
        this.todayHighest = this.days.get(day) ?? [Number.NaN, Number.NaN];
        this.days.set(day, this.todayHighest);
      }
      const highest = this.todayHighest;
      if (Number.isFinite(produced)) highest[0] = higher(highest[0], produced);
      if (Number.isFinite(consumed)) highest[1] = higher(highest[1], consumed);
    }
  }

  result(): ExportSummary {
    return {
      recordCount: this.recordCount,
      firstTimestamp: this.recordCount > 0 ? new Date(this.first) : null,
      lastTimestamp: this.recordCount > 0 ? new Date(this.last) : null,
      energyProduced: this.total(0),
      energyConsumed: this.total(1),
      fields: NUMERIC_FIELDS.map((definition, field) => {
        const count = this.counts[field];
        return {
          field: definition.name,
          unit: definition.unit,
          count,
          average: count > 0 ? (this.sums[field] + this.compensations[field]) / count : null,
          minimum: count > 0 ? this.minima[field] : null,
          maximum: count > 0 ? this.maxima[field] : null,
        };
      }),
    };
  }

  private total(which: 0 | 1): number | null {
    let total: number | null = null;
    for (const highest of this.days.values()) {
      if (!Number.isNaN(highest[which])) total = (total ?? 0) + highest[which];
    }
    return total;
  }
}

/** The larger of two readings, where NaN stands for "no reading yet". */
function higher(current: number, reading: number): number {
  return Number.isNaN(current) || reading > current ? reading : current;
}
