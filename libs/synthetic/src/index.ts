export {
  DEFAULT_BATTERY_CAPACITY_WH,
  DEFAULT_CAPACITY_WATTS,
  DEFAULT_LATITUDE,
  DEFAULT_LONGITUDE,
  SyntheticDevice,
  syntheticSeries,
} from './synthetic-device';
export type {
  OperatingMode,
  SyntheticReading,
  SyntheticSeriesOptions,
  SyntheticStartState,
  SyntheticSystemOptions,
} from './synthetic-device';
export { seedFromText } from './synthetic-noise';
export type { LiveGeneratorStatus } from './synthetic-runs';
export * from './synthetic-telemetry.module';
export * from './synthetic-telemetry.service';
