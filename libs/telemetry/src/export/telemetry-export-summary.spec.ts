import { NUMERIC_FIELDS, NumericField } from '../telemetry-fields';
import { TelemetryExportSummary } from './telemetry-export-summary';

const HOUR = 3600_000;
const DAY1 = Date.parse('2026-05-20T00:00:00Z');
const DAY2 = DAY1 + 24 * HOUR;

/** The numbers argument of `add`: NaN for every field not given. */
function numbers(values: Partial<Record<NumericField, number>>): Float64Array {
  return Float64Array.from(NUMERIC_FIELDS, (field) => values[field.name] ?? Number.NaN);
}

function statistics(summary: TelemetryExportSummary, field: NumericField) {
  return summary.result().fields.find((entry) => entry.field === field);
}

describe('TelemetryExportSummary', () => {
  it('is empty before any record: counts 0, everything else null', () => {
    const result = new TelemetryExportSummary().result();
    expect(result).toMatchObject({
      recordCount: 0,
      firstTimestamp: null,
      lastTimestamp: null,
      energyProduced: null,
      energyConsumed: null,
    });
    expect(result.fields).toHaveLength(24);
    expect(result.fields[0]).toEqual({
      field: 'stateOfCharge',
      unit: '%',
      count: 0,
      average: null,
      minimum: null,
      maximum: null,
    });
  });

  it('per field: count of values, average, minimum, maximum; missing values skipped', () => {
    const summary = new TelemetryExportSummary();
    summary.add(DAY1 + 10 * HOUR, numbers({ solarPower: 100, batteryCurrent: -20 }));
    summary.add(DAY1 + 11 * HOUR, numbers({ solarPower: 300 }));
    summary.add(DAY1 + 12 * HOUR, numbers({ batteryCurrent: 5 }));
    summary.add(DAY1 + 13 * HOUR, numbers({ solarPower: 0 }));

    expect(statistics(summary, 'solarPower')).toEqual({
      field: 'solarPower',
      unit: 'W',
      count: 3,
      average: 400 / 3,
      minimum: 0,
      maximum: 300,
    });
    expect(statistics(summary, 'batteryCurrent')).toMatchObject({
      count: 2,
      average: -7.5,
      minimum: -20,
      maximum: 5,
    });
    expect(statistics(summary, 'gridVoltage')).toMatchObject({ count: 0, average: null });
    expect(summary.result().recordCount).toBe(4);
  });

  it('first and last timestamp whatever the order of the records', () => {
    const summary = new TelemetryExportSummary();
    for (const hour of [5, 1, 9, 3]) summary.add(DAY1 + hour * HOUR, numbers({}));
    expect(summary.result().firstTimestamp).toEqual(new Date(DAY1 + HOUR));
    expect(summary.result().lastTimestamp).toEqual(new Date(DAY1 + 9 * HOUR));
  });

  it('energy: per UTC day the increments of the daily counters, a drop counting as a restart', () => {
    const summary = new TelemetryExportSummary();
    const samples: [number, Partial<Record<NumericField, number>>][] = [
      [DAY1 + 9 * HOUR, { dailyEnergyProduced: 1 }], // the day's first reading counts from zero
      [DAY1 + 10 * HOUR, { dailyEnergyProduced: 1.5, dailyEnergyConsumed: 2 }],
      [DAY1 + 14 * HOUR, { dailyEnergyProduced: 4.25, dailyEnergyConsumed: 3 }],
      [DAY2 - 1000, { dailyEnergyProduced: 6, dailyEnergyConsumed: 0.5 }], // consumed restarted: + 0.5
      [DAY2 + 1000, { dailyEnergyProduced: 0.1, dailyEnergyConsumed: 0.2 }], // both restarted at midnight
      [DAY2 + 12 * HOUR, { dailyEnergyProduced: 5.5, dailyEnergyConsumed: 4 }],
    ];
    for (const [at, values] of samples) summary.add(at, numbers(values));
    expect(summary.result()).toMatchObject({
      energyProduced: 6 + 5.5,
      energyProducedMethod: 'counter',
      energyConsumed: 3.5 + 4,
      energyConsumedMethod: 'counter',
    });
  });

  it('energy: power over time on days without a counter reading; the readings before the range count', () => {
    const summary = new TelemetryExportSummary({
      produced: { counter: null, power: { at: DAY1 + 10 * HOUR - 5 * 60_000, value: 1000 } },
      consumed: { counter: { at: DAY1 - HOUR, value: 3 }, power: null },
    });
    summary.add(DAY1 + 10 * HOUR, numbers({ solarPower: 2000, dailyEnergyConsumed: 1 }));
    summary.add(DAY1 + 10 * HOUR + 10 * 60_000, numbers({ solarPower: 2000, dailyEnergyConsumed: 1.5 }));
    summary.add(DAY2 + 10 * HOUR, numbers({ dailyEnergyProduced: 2 }));
    expect(summary.result()).toMatchObject({
      // Day 1: 1.5 kW for 5 minutes, then 2 kW for 10; day 2: its counter.
      energyProduced: 1.5 / 12 + 2 / 6 + 2,
      energyProducedMethod: 'mixed',
      // 1 is below yesterday's 3: restarted at midnight.
      energyConsumed: 1.5,
      energyConsumedMethod: 'counter',
    });
  });

  it('energy totals are null when no record has the counter', () => {
    const summary = new TelemetryExportSummary();
    summary.add(DAY1, numbers({ dailyEnergyProduced: 2 }));
    expect(summary.result().energyProduced).toBe(2);
    expect(summary.result().energyConsumed).toBeNull();
  });

  it('keeps its average exact where a plain sum drifts (compensated summation)', () => {
    const summary = new TelemetryExportSummary();
    const values = numbers({ loadPower: 0.1 });
    let plain = 0;
    for (let index = 0; index < 10_000; index++) {
      summary.add(DAY1 + index * 10_000, values);
      plain += 0.1;
    }
    expect(plain / 10_000).not.toBe(0.1);
    expect(statistics(summary, 'loadPower')?.average).toBe(0.1);
  });
});
