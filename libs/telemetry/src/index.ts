export * from './telemetry-fields';
export {
  EARLIEST_TIMESTAMP_MS,
  MAX_CLOCK_AHEAD_MS,
  normalizeTelemetry,
  parseCodes,
  parseNumber,
  parseText,
  parseTimestamp,
  telemetryFieldOf,
  TELEMETRY_REJECTION_MESSAGES,
  withoutKey,
} from './normalize';
export type { NormalizedTelemetry, NormalizeResult, TelemetryRejection } from './normalize';
export * from './ingestion/telemetry-ingestion.service';
export * from './ingestion/telemetry-windows';
export * from './ingestion/telemetry-intake';
export * from './ingestion/intake-metrics';
export * from './ingestion/webhook-signature';
export * from './storage/telemetry-partitions';
export * from './storage/telemetry-point';
export * from './storage/telemetry-writer';
export * from './telemetry-ingestion.module';
export * from './query/sun-source-metrics';
export * from './maintenance/telemetry-downsampler';
export * from './energy/energy-increments';
export * from './query/daily-summary';
export * from './query/telemetry-queries.service';
export type { HourlyRow } from './query/telemetry-query.repository';
export * from './query/telemetry-report';
export * from './telemetry-query.module';
export * from './query/measured-production.module';
export * from './export/csv-format';
export * from './export/export-columns';
export * from './export/export-file-name';
export * from './export/telemetry-export-summary';
export * from './export/telemetry-export.module';
export * from './export/telemetry-export.service';
