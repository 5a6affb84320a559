import { clearSkyGhi } from '@solar/forecast';
import { normalizeTelemetry, NUMERIC_FIELDS } from '@solar/telemetry';
import {
  dayWeather,
  DEFAULT_CAPACITY_WATTS,
  DEFAULT_LATITUDE,
  DEFAULT_LONGITUDE,
  localDay,
  MAX_BATTERY_VOLTAGE,
  MIN_BATTERY_VOLTAGE,
  resolveSystem,
  solarPowerAt,
  SyntheticDevice,
  SyntheticReading,
  syntheticSeries,
  SyntheticSeriesOptions,
} from './synthetic-device';
import { seedFromText } from './synthetic-noise';

const STEP_MS = 5 * 60_000;
const HOURS_PER_STEP = STEP_MS / 3_600_000;
const END = new Date('2025-06-30T21:55:00Z');
const TEN_DAYS = { start: new Date(END.getTime() - 2_879 * STEP_MS), end: END, stepMinutes: 5 };
const THIRTY_DAYS = {
  start: new Date(END.getTime() - 8_639 * STEP_MS),
  end: END,
  stepMinutes: 5,
};

/** Installations that stress different corners: defaults, the tropics, far south, far north, huge, tiny. */
const SYSTEMS: Array<{ label: string } & Omit<SyntheticSeriesOptions, 'start' | 'end'>> = [
  { label: 'defaults (Berlin, 5 kW)', seed: 1 },
  {
    label: 'Boulder, 8 kW, 13.5 kWh',
    latitude: 40,
    longitude: -105.25,
    capacityWatts: 8_000,
    batteryCapacityWh: 13_500,
    seed: 2,
  },
  {
    label: 'Sydney, 3 kW, small battery',
    latitude: -33.87,
    longitude: 151.21,
    capacityWatts: 3_000,
    batteryCapacityWh: 2_000,
    seed: 3,
  },
  { label: 'Tromsø in midnight sun', latitude: 69.65, longitude: 18.96, capacityWatts: 6_000, seed: 4 },
  {
    label: 'Nairobi, 100 kW (largest allowed)',
    latitude: -1.29,
    longitude: 36.82,
    capacityWatts: 250_000,
    batteryCapacityWh: 500_000,
    seed: 5,
  },
  {
    label: 'Munich, 4 kW facing east at 60°',
    latitude: 48.14,
    longitude: 11.58,
    capacityWatts: 4_000,
    orientation: { tilt: 60, azimuth: 100 },
    seed: 7,
  },
  {
    label: 'date line, 200 W',
    latitude: -17.7,
    longitude: 179.9,
    capacityWatts: 200,
    batteryCapacityWh: 500,
    seed: 6,
  },
];

const series = new Map<string, SyntheticReading[]>(
  // The defaults over the full 30 days; the others over 10, which keeps this file quick.
  SYSTEMS.map(({ label, ...options }, index) => [
    label,
    syntheticSeries({ ...options, ...(index === 0 ? THIRTY_DAYS : TEN_DAYS) }),
  ]),
);
const cases = SYSTEMS.map((system) => ({ ...system, readings: series.get(system.label)! }));

describe('syntheticSeries', () => {
  it('30 days at 5 minutes are 8,640 readings, 5 minutes apart, ending at `end`', () => {
    const readings = series.get(SYSTEMS[0].label)!;
    expect(readings).toHaveLength(8_640);
    expect(readings.at(-1)!.timestamp).toBe(END.toISOString());
    const gaps = new Set(
      readings
        .slice(1)
        .map((reading, index) => Date.parse(reading.timestamp) - Date.parse(readings[index].timestamp)),
    );
    expect([...gaps]).toEqual([STEP_MS]);
  });

  it.each(cases)('$label: every value inside its field range (the field table)', ({ readings }) => {
    const outside: string[] = [];
    for (const reading of readings) {
      for (const field of NUMERIC_FIELDS) {
        const value = reading[field.name];
        if (value === null || !Number.isFinite(value) || value < field.min || value > field.max) {
          outside.push(`${reading.timestamp} ${field.name}=${value}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });

  it.each(cases)(
    '$label: normalization keeps every value (none nulled, nothing rejected)',
    ({ readings }) => {
      for (const reading of readings.filter((_, index) => index % 97 === 0)) {
        const { timestamp, ...values } = reading;
        expect(normalizeTelemetry(reading, END)).toEqual({
          ok: true,
          telemetry: { timestamp: new Date(timestamp), values, raw: reading },
        });
      }
    },
  );

  it.each(cases)(
    '$label: no solar power while the clear sky is dark',
    ({ readings, latitude, longitude }) => {
      const system = resolveSystem({ latitude, longitude });
      const night = readings.filter(
        (reading) => clearSkyGhi(new Date(reading.timestamp), system.latitude, system.longitude) === 0,
      );
      const lit = night.filter(
        (reading) =>
          reading.solarPower !== 0 || reading.solarCurrent !== 0 || reading.operatingMode === 'Solar',
      );
      expect(lit).toEqual([]);
      // Tromsø in June has no night at all; everywhere else at least 7 hours of every 24 are night.
      if (latitude !== 69.65) expect(night.length).toBeGreaterThan(readings.length / 4);
    },
  );

  it.each(cases)('$label: state of charge within 5–100 %, battery voltage within 46–54 V', ({ readings }) => {
    const stateOfCharge = readings.map((reading) => reading.stateOfCharge!);
    const voltage = readings.map((reading) => reading.batteryVoltage!);
    expect(Math.min(...stateOfCharge)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...stateOfCharge)).toBeLessThanOrEqual(100);
    expect(Math.min(...voltage)).toBeGreaterThanOrEqual(MIN_BATTERY_VOLTAGE);
    expect(Math.max(...voltage)).toBeLessThanOrEqual(MAX_BATTERY_VOLTAGE);
  });

  it.each(cases)(
    '$label: energy balance step to step: ΔSoC × capacity = (solar + grid − load) × Δt',
    ({ readings, batteryCapacityWh, capacityWatts }) => {
      const capacity = resolveSystem({ batteryCapacityWh, capacityWatts }).batteryCapacityWh;
      // SoC is reported to 0.01 %, powers to 0.1 W.
      const tolerance = capacity * 0.0001 + 0.05;
      const broken: string[] = [];
      for (let index = 1; index < readings.length; index += 1) {
        const { stateOfCharge, solarPower, gridPower, loadPower, timestamp } = readings[index];
        const stored = ((stateOfCharge! - readings[index - 1].stateOfCharge!) / 100) * capacity;
        const balance = (solarPower! + gridPower! - loadPower!) * HOURS_PER_STEP;
        if (Math.abs(stored - balance) > tolerance)
          broken.push(`${timestamp}: ${stored} Wh vs ${balance} Wh`);
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(cases)(
    '$label: daily counters reset at local midnight and integrate power over the local day',
    ({ readings, latitude, longitude }) => {
      const system = resolveSystem({ latitude, longitude });
      const problems: string[] = [];
      let produced = 0;
      let consumed = 0;
      let resets = 0;
      for (let index = 0; index < readings.length; index += 1) {
        const reading = readings[index];
        const at = Date.parse(reading.timestamp);
        if (index === 0 || localDay(system, at) !== localDay(system, at - STEP_MS)) {
          if (index > 0) {
            resets += 1;
            // Local midnight: longitude 13.4 → UTC+1, −105.25 → UTC−7, 179.9 → UTC+12.
            const localTime = new Date(at + system.utcOffsetHours * 3_600_000).toISOString().slice(11, 16);
            if (localTime !== '00:00') problems.push(`${reading.timestamp}: reset at local ${localTime}`);
            if (reading.dailyEnergyConsumed! >= readings[index - 1].dailyEnergyConsumed!) {
              problems.push(`${reading.timestamp}: no reset`);
            }
          }
          produced = 0;
          consumed = 0;
        }
        produced += (reading.solarPower! * HOURS_PER_STEP) / 1000;
        consumed += (reading.loadPower! * HOURS_PER_STEP) / 1000;
        if (Math.abs(reading.dailyEnergyProduced! - produced) > 0.01) {
          problems.push(`${reading.timestamp}: produced ${reading.dailyEnergyProduced} ≠ ∫ ${produced}`);
        }
        if (Math.abs(reading.dailyEnergyConsumed! - consumed) > 0.01) {
          problems.push(`${reading.timestamp}: consumed ${reading.dailyEnergyConsumed} ≠ ∫ ${consumed}`);
        }
      }
      expect(problems).toEqual([]);
      const days = new Set(readings.map((reading) => localDay(system, Date.parse(reading.timestamp))));
      expect(resets).toBe(days.size - 1);
      expect(resets).toBeGreaterThanOrEqual(readings.length / 288 - 1);
    },
  );

  it.each(cases)('$label: total counters only grow, by the same energy as the daily ones', ({ readings }) => {
    const shrinking = readings.filter(
      (reading, index) =>
        index > 0 &&
        (reading.totalEnergyProduced! < readings[index - 1].totalEnergyProduced! ||
          reading.totalEnergyConsumed! < readings[index - 1].totalEnergyConsumed!),
    );
    expect(shrinking).toEqual([]);
    const produced = readings
      .slice(1)
      .reduce((sum, reading) => sum + (reading.solarPower! * HOURS_PER_STEP) / 1000, 0);
    const growth = readings.at(-1)!.totalEnergyProduced! - readings[0].totalEnergyProduced!;
    expect(Math.abs(growth - produced)).toBeLessThan(0.01);
  });

  it.each(cases)('$label: battery and grid currents follow their powers', ({ readings }) => {
    const off = readings.filter((reading) => {
      const batteryPower = reading.solarPower! + reading.gridPower! - reading.loadPower!;
      // Currents are reported to 0.01 A, voltages to 0.01 V (battery) or 0.1 V (grid), powers to 0.1 W.
      const batteryTolerance =
        0.005 * reading.batteryVoltage! + 0.005 * Math.abs(reading.batteryCurrent!) + 0.2;
      const gridTolerance = 0.005 * reading.gridVoltage! + 0.05 * Math.abs(reading.gridCurrent!) + 0.1;
      return (
        Math.abs(reading.batteryCurrent! * reading.batteryVoltage! - batteryPower) > batteryTolerance ||
        Math.abs(reading.gridCurrent! * reading.gridVoltage! - reading.gridPower!) > gridTolerance
      );
    });
    expect(off).toEqual([]);
  });

  it('the operating mode names the biggest supply; the status is Normal unless a warning is raised', () => {
    const readings = series.get(SYSTEMS[1].label)!;
    const wrong = readings.filter((reading) => {
      const supplies = {
        Solar: reading.solarPower!,
        Battery: Math.max(0, -reading.batteryCurrent! * reading.batteryVoltage!),
        Grid: Math.max(0, reading.gridPower!),
      };
      return (
        supplies[reading.operatingMode] < Math.max(supplies.Solar, supplies.Battery, supplies.Grid) - 1 ||
        reading.deviceStatus !== (reading.warningCodes.length > 0 ? 'Warning' : 'Normal') ||
        reading.faultCodes.length > 0
      );
    });
    expect(wrong).toEqual([]);
    const modes = new Set(readings.map((reading) => reading.operatingMode));
    expect([...modes].sort()).toEqual(['Battery', 'Grid', 'Solar']);
  });

  it('warnings are rare but do happen', () => {
    const all = [...series.values()].flat();
    const warned = all.filter((reading) => reading.warningCodes.length > 0).length;
    expect(warned).toBeGreaterThan(0);
    expect(warned / all.length).toBeLessThan(0.02);
  });

  it('looks like a household: a ~300 W night base, evening above night, a cloudy day below a clear one', () => {
    const berlin = series.get(SYSTEMS[0].label)!;
    const system = resolveSystem({ seed: 1 });
    const localHour = (reading: SyntheticReading) =>
      new Date(Date.parse(reading.timestamp) + system.utcOffsetHours * 3_600_000).getUTCHours();
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const night = mean(berlin.filter((r) => localHour(r) >= 2 && localHour(r) < 5).map((r) => r.loadPower!));
    const evening = mean(
      berlin.filter((r) => localHour(r) >= 18 && localHour(r) < 21).map((r) => r.loadPower!),
    );
    expect(night).toBeGreaterThan(220);
    expect(night).toBeLessThan(400);
    expect(evening).toBeGreaterThan(night * 2);

    // Daily yield by kind of day: clouds must show.
    const yieldByDay = new Map<number, number>();
    for (const reading of berlin) {
      const day = localDay(system, Date.parse(reading.timestamp));
      yieldByDay.set(day, Math.max(yieldByDay.get(day) ?? 0, reading.dailyEnergyProduced!));
    }
    const days = [...yieldByDay.keys()].slice(1, -1);
    const kinds = days.map((day) => dayWeather(system, day).kind);
    expect(kinds).toContain('clear');
    expect(kinds).toContain('overcast');
    const meanYield = (kind: string) =>
      mean(days.filter((_, i) => kinds[i] === kind).map((d) => yieldByDay.get(d)!));
    expect(meanYield('overcast')).toBeLessThan(meanYield('clear') * 0.5);
    // A clear June day in Berlin: 5 kWp × roughly 5–7 full-sun hours × 0.8.
    expect(meanYield('clear')).toBeGreaterThan(20);
    expect(meanYield('clear')).toBeLessThan(40);
  });

  it('is deterministic for a seed and different for another', () => {
    const options = {
      latitude: 48.1,
      longitude: 11.6,
      seed: seedFromText('some-source'),
      start: new Date('2025-03-01T00:00:00Z'),
      end: new Date('2025-03-08T00:00:00Z'),
    };
    const first = syntheticSeries(options);
    expect(JSON.stringify(syntheticSeries(options))).toBe(JSON.stringify(first));
    const other = syntheticSeries({ ...options, seed: options.seed + 1 });
    expect(
      other.filter((reading, index) => reading.loadPower === first[index].loadPower).length,
    ).toBeLessThan(first.length / 10);
  });

  it('the weather and the load depend on the time, not on where a series starts', () => {
    const options = {
      seed: 9,
      start: new Date('2025-06-01T00:00:00Z'),
      end: new Date('2025-06-03T00:00:00Z'),
    };
    const long = syntheticSeries(options);
    const late = syntheticSeries({ ...options, start: new Date('2025-06-02T00:00:00Z') });
    expect(late.map((r) => [r.solarPower, r.loadPower])).toEqual(
      long.slice(288).map((r) => [r.solarPower, r.loadPower]),
    );
  });

  it('missing or impossible coordinates and capacities fall back to the defaults', () => {
    expect(resolveSystem({})).toMatchObject({
      latitude: DEFAULT_LATITUDE,
      longitude: DEFAULT_LONGITUDE,
      capacityWatts: DEFAULT_CAPACITY_WATTS,
      utcOffsetHours: 1,
    });
    expect(resolveSystem({ latitude: 40, longitude: null })).toMatchObject({ latitude: DEFAULT_LATITUDE });
    expect(resolveSystem({ latitude: 95, longitude: 10 })).toMatchObject({ latitude: DEFAULT_LATITUDE });
    expect(resolveSystem({ capacityWatts: 0 }).capacityWatts).toBe(DEFAULT_CAPACITY_WATTS);
    expect(resolveSystem({ latitude: -33.9, longitude: 151.2 }).utcOffsetHours).toBe(10);
    expect(resolveSystem({ latitude: 40, longitude: -105.25 }).utcOffsetHours).toBe(-7);
  });

  it('a device picks up where a previous reading left off', () => {
    const at = new Date('2025-06-10T10:00:00Z');
    const device = new SyntheticDevice({ seed: 3 }, 10_000, {
      at,
      stateOfCharge: 42,
      totalEnergyProduced: 1234.5,
      totalEnergyConsumed: 999,
      dailyEnergyProduced: 7.25,
      dailyEnergyConsumed: 4,
    });
    const next = device.next(new Date(at.getTime() + 10_000));
    expect(Math.abs(next.stateOfCharge! - 42)).toBeLessThan(0.2);
    expect(next.totalEnergyProduced!).toBeGreaterThanOrEqual(1234.5);
    expect(next.totalEnergyProduced!).toBeLessThan(1234.6);
    expect(next.dailyEnergyProduced!).toBeGreaterThanOrEqual(7.25);
    expect(next.dailyEnergyProduced!).toBeLessThan(7.3);
    // The next local day starts its counters from zero.
    const tomorrow = device.next(new Date('2025-06-10T23:00:10Z'));
    expect(tomorrow.dailyEnergyProduced).toBe(0);
    expect(tomorrow.dailyEnergyConsumed!).toBeLessThan(0.2);
  });

  it('refuses a step that is not positive', () => {
    expect(() => syntheticSeries({ ...THIRTY_DAYS, stepMinutes: 0 })).toThrow(RangeError);
  });
});

describe('solarPowerAt on an array as installed', () => {
  const BERLIN_DECEMBER = Date.parse('2025-12-10T00:00:00Z');
  const instants = Array.from({ length: 288 }, (_, step) => BERLIN_DECEMBER + step * STEP_MS);
  const powers = (orientation: { tilt: number; azimuth: number } | null) => {
    const system = resolveSystem({ seed: 11, orientation });
    return instants.map((at) => solarPowerAt(system, at));
  };
  const energy = (series: number[]) => series.reduce((sum, power) => sum + power, 0) * HOURS_PER_STEP;
  const peakAt = (series: number[]) => instants[series.indexOf(Math.max(...series))];

  it('gives flat panels the horizontal irradiance, as without an orientation', () => {
    const flat = powers({ tilt: 0, azimuth: 180 });
    powers(null).forEach((power, index) => expect(flat[index]).toBeCloseTo(power, 6));
  });

  it('follows the sun the panels face: more in a Berlin winter facing south, less facing north', () => {
    const flat = energy(powers(null));
    expect(flat).toBeGreaterThan(0);
    expect(energy(powers({ tilt: 45, azimuth: 180 }))).toBeGreaterThan(1.2 * flat);
    expect(energy(powers({ tilt: 45, azimuth: 0 }))).toBeLessThan(0.8 * flat);
  });

  it('peaks in the morning facing east and in the afternoon facing west', () => {
    const east = peakAt(powers({ tilt: 60, azimuth: 90 }));
    const west = peakAt(powers({ tilt: 60, azimuth: 270 }));
    // Solar noon in Berlin (13.4° E) is near 11:06 UTC in December.
    expect(new Date(east).getUTCHours()).toBeLessThan(11);
    expect(new Date(west).getUTCHours()).toBeGreaterThanOrEqual(11);
  });
});
