import {
  CombinedEnergyMethod,
  combinedMethod,
  DailyEnergyTally,
  EnergyReadingsBefore,
  NO_READINGS_BEFORE,
} from '../energy/energy-increments';
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
  /** kWh, the sum of the UTC days' energy (`DailyEnergyTally`); null when no day has one. */
  energyProduced: number | null;
  /** How the days' produced energy was counted: `counter`, `power`, or `mixed`. */
  energyProducedMethod: CombinedEnergyMethod | null;
  /** As `energyProduced`, for consumption. */
  energyConsumed: number | null;
  energyConsumedMethod: CombinedEnergyMethod | null;
  /** Every numeric field, in field-table order. */
  fields: FieldStatistics[];
}

// Module constants, not property reads in the loops below: this runs for every record.
const FIELD_COUNT = NUMERIC_FIELDS.length;
const fieldIndex = (name: NumericField) => NUMERIC_FIELDS.findIndex((field) => field.name === name);
const PRODUCED = fieldIndex('dailyEnergyProduced');
const SOLAR = fieldIndex('solarPower');
const CONSUMED = fieldIndex('dailyEnergyConsumed');
const LOAD = fieldIndex('loadPower');

/**
 * The figures of the Excel `Summary` sheet, gathered one record at a time while the records
 * stream past, so no second query and no record kept in memory: per numeric field a count,
 * sum, minimum and maximum, and the energy of each UTC day, produced and consumed, counted as the
 * daily summary counts it (`DailyEnergyTally`). Energy needs the records in time order, which is
 * the export's order; `before` holds the readings before the range its first records count from.
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
  private readonly produced: DailyEnergyTally;
  private readonly consumed: DailyEnergyTally;

  constructor(before: EnergyReadingsBefore = NO_READINGS_BEFORE) {
    this.produced = new DailyEnergyTally(before.produced);
    this.consumed = new DailyEnergyTally(before.consumed);
  }

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

    this.produced.add(epochMs, numbers[PRODUCED], numbers[SOLAR]);
    this.consumed.add(epochMs, numbers[CONSUMED], numbers[LOAD]);
  }

  result(): ExportSummary {
    return {
      recordCount: this.recordCount,
      firstTimestamp: this.recordCount > 0 ? new Date(this.first) : null,
      lastTimestamp: this.recordCount > 0 ? new Date(this.last) : null,
      energyProduced: total(this.produced),
      energyProducedMethod: combinedMethod(this.produced.days().map((day) => day.method)),
      energyConsumed: total(this.consumed),
      energyConsumedMethod: combinedMethod(this.consumed.days().map((day) => day.method)),
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
}

/** The sum of the days' energy; null when no day has any. */
function total(tally: DailyEnergyTally): number | null {
  let sum: number | null = null;
  for (const day of tally.days()) if (day.kwh !== null) sum = (sum ?? 0) + day.kwh;
  return sum;
}
