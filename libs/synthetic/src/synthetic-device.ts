import { haurwitzGhi, Orientation, planeNormal, SolarPosition, solarPosition } from '@solar/forecast';
import { TelemetryValues } from '@solar/telemetry';
import { hashUniform, valueNoise } from './synthetic-noise';

/**
 * A make-believe installation (PV array, inverter, battery, grid connection) that reports what
 * a real one would: PV power from the sun's position and the day's clouds, a household's load,
 * a battery that absorbs the difference within its limits and the grid that takes the rest.
 * Pure apart from the device's own state (state of charge and energy counters); every random
 * choice is a function of the seed and the time, so a series is reproducible.
 */

/** Berlin: where a source without coordinates is imagined to be. */
export const DEFAULT_LATITUDE = 52.52;
export const DEFAULT_LONGITUDE = 13.4;
export const DEFAULT_CAPACITY_WATTS = 5_000;
export const DEFAULT_BATTERY_CAPACITY_WH = 10_000;
export const MIN_STATE_OF_CHARGE = 5;
export const MAX_STATE_OF_CHARGE = 100;
/** AC yield per W/m² of irradiance and W of nameplate: inverter, wiring, soiling and heat losses. */
export const PERFORMANCE_RATIO = 0.8;
export const NOMINAL_BATTERY_VOLTAGE = 48;
export const MIN_BATTERY_VOLTAGE = 46;
export const MAX_BATTERY_VOLTAGE = 54;
/** Codes a device may raise now and then; the device status says 'Warning' while one is active. */
export const SYNTHETIC_WARNING_CODES = ['W01', 'W02', 'W03', 'W05', 'W09'] as const;

// Limits that keep every reported value inside the field table's ranges (solarPower ≤ 100 kW,
// batteryCurrent ±200 A, dailyEnergy ≤ 1000 kWh) whatever capacity a source claims.
const CAPACITY_RANGE = [100, 100_000] as const;
const BATTERY_RANGE = [1_000, 200_000] as const;
const MAX_BATTERY_CURRENT = 180;
/** A battery charges or discharges at up to half its capacity per hour (0.5 C). */
const MAX_C_RATE = 0.5;
/** Longer gaps between readings are not integrated: the device was off, not running flat out. */
const MAX_INTEGRATION_GAP_MS = 15 * 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Share of local hours with a warning: a handful a month. */
const WARNING_PROBABILITY = 0.004;

/** Independent noise channels; the numbers only have to differ. */
enum Channel {
  DayKind = 1,
  DayLevel,
  Sky,
  SkyFast,
  LoadDay,
  LoadDrift,
  LoadJitter,
  Appliance,
  ApplianceSize,
  GridVoltage,
  GridFrequency,
  OutputVoltage,
  OutputFrequency,
  PowerFactor,
  BatteryTemperature,
  Warning,
  WarningCode,
  StateOfHealth,
  InitialCharge,
  InitialTotals,
}

export interface SyntheticSystemOptions {
  latitude?: number | null;
  longitude?: number | null;
  capacityWatts?: number | null;
  batteryCapacityWh?: number | null;
  /** The array as installed; without one the panels lie flat. */
  orientation?: Orientation | null;
  seed?: number;
}

/** Where a device picks up: a previous reading's battery and counters (missing parts are invented). */
export interface SyntheticStartState {
  at?: Date;
  stateOfCharge?: number | null;
  totalEnergyProduced?: number | null;
  totalEnergyConsumed?: number | null;
  dailyEnergyProduced?: number | null;
  dailyEnergyConsumed?: number | null;
}

/** One reading, as a device would send it: canonical field names and an ISO timestamp. */
export type SyntheticReading = TelemetryValues & {
  timestamp: string;
  operatingMode: OperatingMode;
  deviceStatus: 'Normal' | 'Warning';
  faultCodes: string[];
  warningCodes: string[];
};

export type OperatingMode = 'Solar' | 'Battery' | 'Grid';

/** The installation with every default applied and every limit enforced. */
export interface SyntheticSystem {
  latitude: number;
  longitude: number;
  capacityWatts: number;
  batteryCapacityWh: number;
  /** Null: flat panels, which see the horizontal irradiance. */
  orientation: Orientation | null;
  seed: number;
  /** Local time, approximated from the longitude: round(longitude / 15) hours ahead of UTC. */
  utcOffsetHours: number;
}

export type DayKind = 'clear' | 'partly cloudy' | 'overcast';

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const round = (value: number, decimals: number) => {
  const factor = 10 ** decimals;
  // `+ 0` turns −0 into 0: a device does not report "-0".
  return Math.round(value * factor) / factor + 0;
};
const bump = (hour: number, centre: number, width: number) => Math.exp(-(((hour - centre) / width) ** 2));
const isCoordinate = (value: number | null | undefined, limit: number): value is number =>
  typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= limit;
const isPositive = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0;

export function resolveSystem(options: SyntheticSystemOptions): SyntheticSystem {
  // Half a location is no location: both coordinates or the default place.
  const located = isCoordinate(options.latitude, 90) && isCoordinate(options.longitude, 180);
  const longitude = located ? (options.longitude as number) : DEFAULT_LONGITUDE;
  return {
    latitude: located ? (options.latitude as number) : DEFAULT_LATITUDE,
    longitude,
    capacityWatts: isPositive(options.capacityWatts)
      ? clamp(options.capacityWatts, ...CAPACITY_RANGE)
      : DEFAULT_CAPACITY_WATTS,
    batteryCapacityWh: isPositive(options.batteryCapacityWh)
      ? clamp(options.batteryCapacityWh, ...BATTERY_RANGE)
      : DEFAULT_BATTERY_CAPACITY_WH,
    orientation: options.orientation ?? null,
    seed: (options.seed ?? 1) >>> 0,
    utcOffsetHours: Math.round(longitude / 15),
  };
}

/** Days since 1970-01-01 in the system's local time: counters reset when it changes. */
export function localDay(system: SyntheticSystem, at: number): number {
  return Math.floor((at + system.utcOffsetHours * HOUR_MS) / DAY_MS);
}

function localHour(system: SyntheticSystem, at: number): number {
  const local = at + system.utcOffsetHours * HOUR_MS;
  return (((local % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS;
}

/** What kind of day it is and how much of the clear-sky light its clouds let through on average. */
export function dayWeather(system: SyntheticSystem, day: number): { kind: DayKind; clearness: number } {
  const kind = hashUniform(system.seed, Channel.DayKind, day);
  const level = hashUniform(system.seed, Channel.DayLevel, day);
  if (kind < 0.5) return { kind: 'clear', clearness: 0.9 + 0.1 * level };
  if (kind < 0.82) return { kind: 'partly cloudy', clearness: 0.45 + 0.3 * level };
  return { kind: 'overcast', clearness: 0.1 + 0.2 * level };
}

/** Share of the clear-sky irradiance that reaches the panels at `at`, 0..1. */
export function cloudTransmission(system: SyntheticSystem, at: number): number {
  const { kind, clearness } = dayWeather(system, localDay(system, at));
  const slow = valueNoise(system.seed, Channel.Sky, at, 20 * 60_000) - 0.5;
  const fast = valueNoise(system.seed, Channel.SkyFast, at, 5 * 60_000) - 0.5;
  switch (kind) {
    case 'clear':
      return clamp(clearness + 0.04 * slow, 0, 1);
    case 'partly cloudy':
      return clamp(clearness + 0.7 * slow + 0.3 * fast, 0.08, 1);
    case 'overcast':
      return clamp(clearness * (1 + 0.6 * slow), 0.03, 1);
  }
}

/**
 * PV power in W: the irradiance on the panels × kWp × performance ratio; exactly 0 while the sun
 * is down. Flat panels see the clear-sky GHI dimmed by the clouds.
 */
export function solarPowerAt(system: SyntheticSystem, at: number): number {
  const sun = solarPosition(new Date(at), system.latitude, system.longitude);
  const clearSky = haurwitzGhi(sun.elevation);
  if (clearSky === 0) return 0;
  const transmission = cloudTransmission(system, at);
  const ghi = clearSky * transmission;
  const irradiance = system.orientation ? tiltedIrradiance(system.orientation, sun, ghi, transmission) : ghi;
  return Math.min(((irradiance * system.capacityWatts) / 1000) * PERFORMANCE_RATIO, system.capacityWatts);
}

/** Ground reflectance seen by tilted panels. */
const ALBEDO = 0.2;
/** The sun's height (as cos of its zenith) below which its beam is not projected onto the panels. */
const MIN_BEAM_COS_ZENITH = Math.sin((5 * Math.PI) / 180);
const RADIANS = Math.PI / 180;

/**
 * A tilted array's irradiance from the GHI, by a make-believe sky kept simpler than the
 * forecaster's: the beam carries 80 % of the light under a clear sky and less as the clouds
 * thicken (in proportion to what they let through), the rest is an isotropic sky, and the ground
 * reflects 20 %. Flat panels get the GHI back.
 */
function tiltedIrradiance(
  orientation: Orientation,
  sun: SolarPosition,
  ghi: number,
  transmission: number,
): number {
  const [east, north, up] = planeNormal(orientation);
  const zenith = sun.zenith * RADIANS;
  const sunAzimuth = sun.azimuth * RADIANS;
  const cosZenith = Math.cos(zenith);
  const cosIncidence = Math.max(
    0,
    Math.sin(zenith) * (Math.sin(sunAzimuth) * east + Math.cos(sunAzimuth) * north) + cosZenith * up,
  );
  const beamShare = cosZenith >= MIN_BEAM_COS_ZENITH ? 0.8 * transmission : 0;
  const beam = beamShare > 0 ? (ghi * beamShare * cosIncidence) / cosZenith : 0;
  const sky = ghi * (1 - beamShare) * ((1 + up) / 2);
  const ground = ghi * ALBEDO * ((1 - up) / 2);
  return beam + sky + ground;
}

/**
 * Household load in W: a base of about 300 W (fridge, standby, network), a morning peak (later
 * at weekends), a midday bump, an evening peak, day-to-day and minute-to-minute variation and now
 * and then an appliance (kettle, oven, washing machine) for five minutes. Scaled with the
 * installation, so a large array does not sit beside a tiny load.
 */
export function loadPowerAt(system: SyntheticSystem, at: number): number {
  const day = localDay(system, at);
  const hour = localHour(system, at);
  const weekday = (((day + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday; 0 = Sunday
  const weekend = weekday === 0 || weekday === 6;
  const profile =
    300 +
    (weekend ? 500 : 650) * bump(hour, weekend ? 8.75 : 7, 0.9) +
    (weekend ? 450 : 200) * bump(hour, 13, 1.6) +
    1000 * bump(hour, 19.3, 1.7);
  const dayFactor = 0.85 + 0.3 * hashUniform(system.seed, Channel.LoadDay, day);
  const drift = 0.85 + 0.3 * valueNoise(system.seed, Channel.LoadDrift, at, 15 * 60_000);
  const jitter = 0.95 + 0.1 * hashUniform(system.seed, Channel.LoadJitter, Math.floor(at / 60_000));
  const slot = Math.floor(at / (5 * 60_000));
  const awake = hour >= 6.5 && hour < 22.5;
  const appliance =
    hashUniform(system.seed, Channel.Appliance, slot) < (awake ? 0.05 : 0.005)
      ? 1200 + 1300 * hashUniform(system.seed, Channel.ApplianceSize, slot)
      : 0;
  const scale = clamp(system.capacityWatts / DEFAULT_CAPACITY_WATTS, 0.5, 10);
  return scale * (profile * dayFactor * drift * jitter + appliance);
}

/** The warning active during the local hour holding `at`, if any. */
export function warningAt(system: SyntheticSystem, at: number): string | null {
  const hour = Math.floor((at + system.utcOffsetHours * HOUR_MS) / HOUR_MS);
  if (hashUniform(system.seed, Channel.Warning, hour) >= WARNING_PROBABILITY) return null;
  const pick = hashUniform(system.seed, Channel.WarningCode, hour);
  return SYNTHETIC_WARNING_CODES[Math.floor(pick * SYNTHETIC_WARNING_CODES.length)];
}

/** Battery terminal voltage: 46 V empty to 54 V full (48 V nominal), a little higher while charging. */
export function batteryVoltageFor(stateOfCharge: number, batteryPower: number): number {
  const resting = MIN_BATTERY_VOLTAGE + 0.6 + 7.2 * (stateOfCharge / 100);
  const underLoad = resting + 0.008 * (batteryPower / NOMINAL_BATTERY_VOLTAGE);
  return clamp(underLoad, MIN_BATTERY_VOLTAGE, MAX_BATTERY_VOLTAGE);
}

/**
 * The device: each `next(at)` advances its battery and counters to `at` and reports. Powers are
 * the ones during the interval that ends at `at` (as long as the step, or since the previous
 * reading), so consecutive readings obey the energy balance
 * `Δ(stateOfCharge) × capacity = (solarPower + gridPower − loadPower) × Δt`.
 */
export class SyntheticDevice {
  readonly system: SyntheticSystem;
  private stateOfCharge: number;
  private totalProduced: number;
  private totalConsumed: number;
  private dailyProduced: number;
  private dailyConsumed: number;
  private day: number | undefined;
  private lastAt: number | undefined;
  private readonly maxBatteryPower: number;
  private readonly stateOfHealth: number;

  constructor(
    options: SyntheticSystemOptions,
    private readonly stepMs = 5 * 60_000,
    start: SyntheticStartState = {},
  ) {
    const system = resolveSystem(options);
    this.system = system;
    const initial = (index: number) => hashUniform(system.seed, Channel.InitialTotals, index);
    const kWp = system.capacityWatts / 1000;
    const finite = (value: number | null | undefined): value is number =>
      typeof value === 'number' && Number.isFinite(value);

    this.stateOfCharge = finite(start.stateOfCharge)
      ? clamp(start.stateOfCharge, MIN_STATE_OF_CHARGE, MAX_STATE_OF_CHARGE)
      : 30 + 50 * hashUniform(system.seed, Channel.InitialCharge, 0);
    // An installation some months to a few years old: about 1,000 kWh a year per kWp.
    this.totalProduced = finite(start.totalEnergyProduced)
      ? Math.max(0, start.totalEnergyProduced)
      : kWp * (300 + 2_000 * initial(0));
    this.totalConsumed = finite(start.totalEnergyConsumed)
      ? Math.max(0, start.totalEnergyConsumed)
      : this.totalProduced * (0.8 + 0.4 * initial(1));
    const at = start.at?.getTime();
    this.lastAt = at;
    this.day = at === undefined ? undefined : localDay(system, at);
    this.dailyProduced = finite(start.dailyEnergyProduced) ? Math.max(0, start.dailyEnergyProduced) : 0;
    this.dailyConsumed = finite(start.dailyEnergyConsumed) ? Math.max(0, start.dailyEnergyConsumed) : 0;
    this.maxBatteryPower = Math.min(
      MAX_C_RATE * system.batteryCapacityWh,
      MAX_BATTERY_CURRENT * MIN_BATTERY_VOLTAGE,
    );
    this.stateOfHealth = round(94 + 5 * hashUniform(system.seed, Channel.StateOfHealth, 0), 1);
  }

  next(date: Date): SyntheticReading {
    const { system } = this;
    const at = date.getTime();
    const elapsed =
      this.lastAt === undefined ? this.stepMs : clamp(at - this.lastAt, 0, MAX_INTEGRATION_GAP_MS);
    const hours = elapsed / HOUR_MS;
    this.lastAt = at;

    const solarPower = round(solarPowerAt(system, at), 1);
    const loadPower = round(loadPowerAt(system, at), 1);
    const batteryPower = this.batteryPower(solarPower - loadPower, hours);
    const gridPower = round(batteryPower - (solarPower - loadPower), 1);
    if (hours > 0) {
      this.stateOfCharge = clamp(
        this.stateOfCharge + ((batteryPower * hours) / system.batteryCapacityWh) * 100,
        MIN_STATE_OF_CHARGE,
        MAX_STATE_OF_CHARGE,
      );
    }

    const day = localDay(system, at);
    if (day !== this.day) {
      this.day = day;
      this.dailyProduced = 0;
      this.dailyConsumed = 0;
    }
    const produced = (solarPower * hours) / 1000;
    const consumed = (loadPower * hours) / 1000;
    this.dailyProduced += produced;
    this.dailyConsumed += consumed;
    this.totalProduced += produced;
    this.totalConsumed += consumed;

    return this.reading(at, solarPower, loadPower, batteryPower, gridPower);
  }

  /** W into the battery (negative: out of it), within its power limit, 5 % floor and 100 % ceiling. */
  private batteryPower(surplus: number, hours: number): number {
    if (hours <= 0) return 0;
    const capacity = this.system.batteryCapacityWh;
    if (surplus >= 0) {
      const room = ((MAX_STATE_OF_CHARGE - this.stateOfCharge) / 100) * capacity;
      return Math.min(surplus, this.maxBatteryPower, room / hours);
    }
    const available = ((this.stateOfCharge - MIN_STATE_OF_CHARGE) / 100) * capacity;
    return -Math.min(-surplus, this.maxBatteryPower, available / hours);
  }

  private reading(
    at: number,
    solarPower: number,
    loadPower: number,
    batteryPower: number,
    gridPower: number,
  ): SyntheticReading {
    const { system, stateOfCharge } = this;
    const noise = (channel: Channel, period: number) => valueNoise(system.seed, channel, at, period) - 0.5;
    const hour = localHour(system, at);

    const batteryVoltage = batteryVoltageFor(stateOfCharge, batteryPower);
    const batteryAh = system.batteryCapacityWh / NOMINAL_BATTERY_VOLTAGE;
    const batteryTemperature =
      20 +
      4 * Math.sin((2 * Math.PI * (hour - 9)) / 24) +
      4 * (Math.abs(batteryPower) / this.maxBatteryPower) +
      noise(Channel.BatteryTemperature, 30 * 60_000);

    // PV strings run near their maximum power point voltage whenever there is light.
    const stringVoltage = Math.min(800, 300 + system.capacityWatts / 200);
    const solarVoltage =
      solarPower > 0
        ? stringVoltage * (0.9 + 0.1 * Math.min(1, solarPower / (0.2 * system.capacityWatts)))
        : 0;

    const gridVoltage =
      230 + 4 * noise(Channel.GridVoltage, 10 * 60_000) + (1.5 * Math.max(0, -gridPower)) / 10_000;
    const outputVoltage = 230 + noise(Channel.OutputVoltage, 10 * 60_000);
    const powerFactor = 0.93 + 0.05 * (noise(Channel.PowerFactor, 15 * 60_000) + 0.5);
    const apparentPower = loadPower / powerFactor;
    const inverterRating = Math.max(3_000, system.capacityWatts);

    const discharge = Math.max(0, -batteryPower);
    const gridImport = Math.max(0, gridPower);
    const operatingMode: OperatingMode =
      solarPower >= discharge && solarPower >= gridImport && solarPower > 0
        ? 'Solar'
        : discharge >= gridImport && discharge > 0
          ? 'Battery'
          : 'Grid';
    const warning = warningAt(system, at);

    return {
      timestamp: new Date(at).toISOString(),
      stateOfCharge: round(stateOfCharge, 2),
      stateOfHealth: this.stateOfHealth,
      batteryVoltage: round(batteryVoltage, 2),
      // Positive while charging.
      batteryCurrent: round(batteryPower / batteryVoltage, 2),
      batteryTemperature: round(batteryTemperature, 1),
      batteryCapacity: round(batteryAh, 1),
      remainingCapacity: round((batteryAh * stateOfCharge) / 100, 1),
      solarVoltage: round(solarVoltage, 1),
      solarCurrent: solarVoltage > 0 ? round(solarPower / solarVoltage, 2) : 0,
      solarPower,
      outputVoltage: round(outputVoltage, 1),
      outputCurrent: round(loadPower / outputVoltage, 2),
      outputFrequency: round(50 + 0.02 * noise(Channel.OutputFrequency, 5 * 60_000), 2),
      loadPower,
      loadPercentage: round(clamp((100 * apparentPower) / inverterRating, 0, 200), 1),
      apparentPower: round(apparentPower, 1),
      gridVoltage: round(gridVoltage, 1),
      gridCurrent: round(gridPower / gridVoltage, 2),
      gridFrequency: round(50 + 0.08 * noise(Channel.GridFrequency, 2 * 60_000), 3),
      gridPower,
      totalEnergyProduced: round(this.totalProduced, 3),
      totalEnergyConsumed: round(this.totalConsumed, 3),
      dailyEnergyProduced: round(this.dailyProduced, 3),
      dailyEnergyConsumed: round(this.dailyConsumed, 3),
      operatingMode,
      deviceStatus: warning ? 'Warning' : 'Normal',
      faultCodes: [],
      warningCodes: warning ? [warning] : [],
    };
  }
}

export interface SyntheticSeriesOptions extends SyntheticSystemOptions {
  /** First reading; later ones follow every `stepMinutes` up to `end` inclusive. */
  start: Date;
  end: Date;
  stepMinutes?: number;
  startState?: SyntheticStartState;
}

/** Readings every `stepMinutes` (default 5) from `start` to `end`, both included. */
export function syntheticSeries(options: SyntheticSeriesOptions): SyntheticReading[] {
  const stepMs = Math.round((options.stepMinutes ?? 5) * 60_000);
  if (!(stepMs > 0)) throw new RangeError('stepMinutes must be positive');
  const device = new SyntheticDevice(options, stepMs, options.startState);
  const readings: SyntheticReading[] = [];
  for (let at = options.start.getTime(); at <= options.end.getTime(); at += stepMs) {
    readings.push(device.next(new Date(at)));
  }
  return readings;
}
