import { CHARGE_EFFICIENCY, estimateBatteryCapacity, MAX_C_RATE, simulateBattery } from './battery';
import { buildTimeline } from './timeline';
import { SYNTHETIC_SITE, syntheticSeries } from './model.fixtures';
import { seededRandom } from './gradient-boosting';

describe('simulateBattery', () => {
  it('stays within its floor and 100 % whatever the flows, and moves with the balance', () => {
    const random = seededRandom(4);
    const solar = Array.from({ length: 500 }, () => 6000 * random());
    const load = Array.from({ length: 500 }, () => 6000 * random());
    const run = simulateBattery(solar, load, { capacityWh: 5000, start: 40, floor: 10 });
    let previous = 40;
    run.stateOfCharge.forEach((soc, hour) => {
      expect(soc).toBeGreaterThanOrEqual(10 - 1e-9);
      expect(soc).toBeLessThanOrEqual(100);
      const net = solar[hour] - load[hour];
      if (net > 0) expect(soc).toBeGreaterThanOrEqual(previous - 1e-9);
      if (net < 0) expect(soc).toBeLessThanOrEqual(previous + 1e-9);
      previous = soc;
    });
  });

  it('charges with the surplus until full and counts what it took in', () => {
    const run = simulateBattery([3000, 3000, 3000, 3000], [1000, 1000, 1000, 1000], {
      capacityWh: 10_000,
      start: 80,
      floor: 0,
    });
    // 2 kWh surplus, capped at 0.5 C = 5 kWh: 1.9 kWh into the cells in the first hour.
    expect(run.stateOfCharge[0]).toBeCloseTo(80 + (2000 * CHARGE_EFFICIENCY) / 100, 6);
    expect(run.charged[0]).toBeCloseTo(2000, 6);
    expect(run.stateOfCharge[3]).toBe(100);
    expect(run.charged[3]).toBe(0);
  });

  it('discharges no faster than 0.5 C and not below the floor', () => {
    const run = simulateBattery([0, 0, 0], [20_000, 20_000, 20_000], {
      capacityWh: 10_000,
      start: 90,
      floor: 20,
    });
    expect(run.stateOfCharge[0]).toBeCloseTo(90 - MAX_C_RATE * 100, 6);
    expect(run.stateOfCharge[1]).toBeCloseTo(20, 6);
    expect(run.stateOfCharge[2]).toBeCloseTo(20, 6);
  });
});

describe('estimateBatteryCapacity', () => {
  it('recovers the capacity of a simulated battery within 10 %', () => {
    const start = Date.parse('2024-05-01T00:00:00Z');
    const series = syntheticSeries(start, 30, 2);
    const timeline = buildTimeline(SYNTHETIC_SITE, series.history, [], start, start + 30 * 86_400_000);
    const estimate = estimateBatteryCapacity(timeline);
    expect(estimate).not.toBeNull();
    expect(Math.abs((estimate ?? 0) / (SYNTHETIC_SITE.batteryCapacityWh ?? 1) - 1)).toBeLessThan(0.1);
  });

  it('says nothing without a state of charge', () => {
    const start = Date.parse('2024-05-01T00:00:00Z');
    const series = syntheticSeries(start, 5, 2);
    const history = series.history.map((observation) => ({ ...observation, stateOfCharge: null }));
    const timeline = buildTimeline(SYNTHETIC_SITE, history, [], start, start + 5 * 86_400_000);
    expect(estimateBatteryCapacity(timeline)).toBeNull();
  });
});
