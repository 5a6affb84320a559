import { Timeline } from './timeline';

/**
 * State of charge from the energy balance, hour by hour: surplus solar charges the battery until
 * it is full (the rest is exported), a deficit discharges it down to its floor (the rest is
 * imported), at most half its capacity per hour (0.5 C) and with 95 % efficiency each way.
 */

export const DEFAULT_BATTERY_CAPACITY_WH = 10_000;
/** Where a forecast starts when the history has no state of charge at all. */
export const DEFAULT_STATE_OF_CHARGE = 50;
export const CHARGE_EFFICIENCY = 0.95;
export const MAX_C_RATE = 0.5;

/** Hours of (solar, load, state of charge) triples needed before an estimate counts. */
const MIN_ESTIMATE_HOURS = 24;

/**
 * Usable capacity (Wh) from history: the median, over hours where the state of charge moved by
 * more than a point between the middles of two consecutive hours away from the limits, of the
 * net solar-minus-load energy over that change. Null when the history cannot tell.
 */
export function estimateBatteryCapacity(timeline: Timeline, until = timeline.hours): number | null {
  const { solar, load, stateOfCharge } = timeline;
  const estimates: number[] = [];
  for (let hour = 0; hour + 1 < until; hour++) {
    const before = stateOfCharge[hour];
    const after = stateOfCharge[hour + 1];
    if (!Number.isFinite(before) || !Number.isFinite(after)) continue;
    if (Math.min(before, after) <= 5 || Math.max(before, after) >= 95) continue;
    const change = after - before;
    if (Math.abs(change) < 1) continue;
    // Hour means sit at mid-hour: between them lie half of each hour's net energy.
    const net = (solar[hour] - load[hour] + (solar[hour + 1] - load[hour + 1])) / 2;
    if (!Number.isFinite(net) || Math.abs(net) < 100 || Math.sign(net) !== Math.sign(change)) continue;
    const efficiency = net > 0 ? CHARGE_EFFICIENCY : 1 / CHARGE_EFFICIENCY;
    estimates.push((net * efficiency) / (change / 100));
  }
  if (estimates.length < MIN_ESTIMATE_HOURS) return null;
  estimates.sort((a, b) => a - b);
  const median = estimates[Math.floor(estimates.length / 2)];
  // Outside what home batteries are, the telemetry is more likely wrong than the battery.
  return median >= 500 && median <= 500_000 ? median : null;
}

export interface BatteryOptions {
  capacityWh: number;
  /** %, 0–100 */
  start: number;
  /** Lowest state of charge the battery is run down to, %. */
  floor: number;
}

export interface BatteryRun {
  /** State of charge at the end of each hour, %. */
  stateOfCharge: number[];
  /** Energy taken into the battery in each hour, Wh (before the charging losses). */
  charged: number[];
}

/** Runs the balance over hourly mean solar and load powers (W, so Wh per hour). */
export function simulateBattery(
  solar: readonly number[],
  load: readonly number[],
  options: BatteryOptions,
): BatteryRun {
  const capacity = Math.max(1, options.capacityWh);
  const floor = Math.min(100, Math.max(0, options.floor));
  let stored = (Math.min(100, Math.max(floor, options.start)) / 100) * capacity;
  const maxFlow = MAX_C_RATE * capacity;
  const stateOfCharge: number[] = [];
  const charged: number[] = [];
  for (let hour = 0; hour < solar.length; hour++) {
    const net = solar[hour] - load[hour];
    let taken = 0;
    if (net > 0) {
      const room = capacity - stored;
      const intoCells = Math.min(net * CHARGE_EFFICIENCY, room, maxFlow);
      stored += intoCells;
      taken = intoCells / CHARGE_EFFICIENCY;
    } else if (net < 0) {
      const available = stored - (floor / 100) * capacity;
      const outOfCells = Math.min(-net / CHARGE_EFFICIENCY, Math.max(0, available), maxFlow);
      stored -= outOfCells;
    }
    stateOfCharge.push(Math.min(100, Math.max(0, (stored / capacity) * 100)));
    charged.push(taken);
  }
  return { stateOfCharge, charged };
}
