import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from './registry';
import { SampledGauge } from './sampled-gauge';

/**
 * Every metric family the apps export besides prom-client's process metrics, in one place
 * (docs/operations.md describes each). Conventions: the `solar_` prefix, base units (seconds),
 * counters ending in `_total`, and labels from small fixed sets: never a source, user or job id.
 * An app exports all of them; those it never records stay empty (a histogram or labelled counter
 * with no sample shows only its HELP and TYPE lines).
 */
const registers = [metricsRegistry];

/** Seconds: the buckets of the request-scale histograms (HTTP, batch commits, the intake steps). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

// ─── HTTP (api) ──────────────────────────────────────────────────────────────────────────────

/** `route`: the route's template (`/api/sunsources/:id`); `unmatched` for what no route answers. */
export const httpRequestDuration = new Histogram({
  name: 'solar_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route template and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

// ─── Telemetry intake (api: webhook, ingestor: MQTT) ─────────────────────────────────────────

export const TELEMETRY_CHANNELS = ['webhook', 'mqtt'] as const;
export type TelemetryChannel = (typeof TELEMETRY_CHANNELS)[number];

/**
 * What became of a device's message. `refused`: not stored for good (the reason is counted by
 * `telemetryRefusals`); `lost`: not stored because storage failed (the webhook answered 503 or
 * 500, an MQTT message was given up at shutdown).
 */
export const MESSAGE_OUTCOMES = ['stored', 'throttled', 'duplicate', 'refused', 'lost'] as const;
export type MessageOutcome = (typeof MESSAGE_OUTCOMES)[number];

export const telemetryMessages = new Counter({
  name: 'solar_telemetry_messages_total',
  help: 'Device messages taken in, by channel and outcome (stored, throttled, duplicate, refused, lost)',
  labelNames: ['channel', 'outcome'] as const,
  registers,
});

/** Why a message was refused; a fixed set (docs/operations.md). */
export const REFUSAL_REASONS = [
  'over_budget',
  'oversize',
  'malformed',
  'unauthenticated',
  'not_an_object',
  'invalid_timestamp',
  'future_timestamp',
  'no_valid_fields',
  'unstorable',
  'unknown_source',
  'revoked',
  'not_a_source_topic',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export const telemetryRefusals = new Counter({
  name: 'solar_telemetry_refused_messages_total',
  help: 'Device messages refused for good, by channel and reason',
  labelNames: ['channel', 'reason'] as const,
  registers,
});

export const telemetryInFlight = new SampledGauge<'channel'>({
  name: 'solar_telemetry_messages_in_flight',
  help: 'Device messages received and not yet answered or acknowledged, by channel',
  labelNames: ['channel'],
});

export const telemetryBatchPoints = new Histogram({
  name: 'solar_telemetry_batch_points',
  help: 'Points per telemetry INSERT (group commit: up to 1000 points or 5 ms)',
  buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
  registers,
});

export const telemetryCommitDuration = new Histogram({
  name: 'solar_telemetry_commit_duration_seconds',
  help: 'Time to write and commit one telemetry batch',
  buckets: LATENCY_BUCKETS,
  registers,
});

export const telemetryBatchFailures = new Counter({
  name: 'solar_telemetry_batch_failures_total',
  help: 'Telemetry batches whose INSERT failed (their messages were not stored)',
  registers,
});

export const telemetryIngestionLag = new Histogram({
  name: 'solar_telemetry_ingestion_lag_seconds',
  help: 'Time from a message being received to its row being committed',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers,
});

/**
 * The steps of the intake a message waits on: `source` (is the source there, active and of this
 * transport: memory, or a batched read), `windows` (the arrival budget and the duplicate and
 * throttle windows: a Redis round trip), `write` (its batch's linger, a free commit slot and the
 * commit). Which of them grows tells an operator whether Redis or PostgreSQL holds the latency.
 */
export const TELEMETRY_STAGES = ['source', 'windows', 'write'] as const;
export type TelemetryStage = (typeof TELEMETRY_STAGES)[number];

/** Its buckets are `LATENCY_BUCKETS`: `bench:ingest` reads the percentiles off them. */
export const telemetryStageDuration = new Histogram({
  name: 'solar_telemetry_stage_duration_seconds',
  help: 'Time a message waits on each step of the intake: source check, windows (Redis), write (batch and commit)',
  labelNames: ['stage'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

// ─── MQTT broker (ingestor's embedded broker; api's hooks for EMQX) ─────────────────────────

export const mqttDevicesConnected = new SampledGauge({
  name: 'solar_mqtt_devices_connected',
  help: 'Devices connected to the embedded MQTT broker (the ingestor itself not counted)',
});

/** `busy`: refused unchecked, too many waiting; `rate_limited`: too many CONNECTs from one client id. */
export const MQTT_CONNECT_VERDICTS = [
  'device',
  'superuser',
  'deny',
  'rate_limited',
  'busy',
  'error',
] as const;
export type MqttConnectVerdict = (typeof MQTT_CONNECT_VERDICTS)[number];

export const mqttConnects = new Counter({
  name: 'solar_mqtt_connects_total',
  help: 'CONNECTs to the embedded MQTT broker, by verdict',
  labelNames: ['verdict'] as const,
  registers,
});

/** `hook`: auth (verdict device, superuser or deny) or acl (allow or deny); `error`: the check failed. */
export const brokerHookRequests = new Counter({
  name: 'solar_broker_hook_requests_total',
  help: "The broker's authentication and authorization requests to the api, by hook and verdict",
  labelNames: ['hook', 'verdict'] as const,
  registers,
});

// ─── Prediction queue (scheduler) and scheduled tasks ───────────────────────────────────────

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

export const queueJobs = new SampledGauge<'queue' | 'state'>({
  name: 'solar_queue_jobs',
  help: 'Jobs in a BullMQ queue, by queue and state',
  labelNames: ['queue', 'state'],
});

const JOB_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/** `type`: train or predict; `status`: completed or failed. */
export const queueJobDuration = new Histogram({
  name: 'solar_queue_job_duration_seconds',
  help: 'Time a queued job ran, by queue, job type and status',
  labelNames: ['queue', 'type', 'status'] as const,
  buckets: JOB_BUCKETS,
  registers,
});

/** `reason`: failed (the job ran and failed) or abandoned (the queue gave up on a stalled job). */
export const queueJobFailures = new Counter({
  name: 'solar_queue_job_failures_total',
  help: 'Queued jobs that failed, by queue, job type and reason',
  labelNames: ['queue', 'type', 'reason'] as const,
  registers,
});

/** `task`: downsample, weather, predict, unverified-accounts; `status`: completed, skipped, failed. */
export const scheduledTaskRuns = new Counter({
  name: 'solar_scheduled_task_runs_total',
  help: "The scheduler's cron tasks, by task and status",
  labelNames: ['task', 'status'] as const,
  registers,
});

export const scheduledTaskDuration = new Histogram({
  name: 'solar_scheduled_task_duration_seconds',
  help: "Time a scheduler's cron task ran (completed or failed), by task",
  labelNames: ['task'] as const,
  buckets: JOB_BUCKETS,
  registers,
});

/**
 * The scheduled prediction job's new trainings of models that are due (docs/forecasting.md).
 * `outcome`: stored; superseded (a training replaced the model meanwhile, so it was not stored);
 * failed (no data, the source gone, the model refused it).
 */
export const modelRetrainingDuration = new Histogram({
  name: 'solar_model_retraining_duration_seconds',
  help: 'Time a scheduled new training of a model took, by outcome',
  labelNames: ['outcome'] as const,
  buckets: JOB_BUCKETS,
  registers,
});

// ─── Weather provider ────────────────────────────────────────────────────────────────────────

export const WEATHER_FETCH_OUTCOMES = ['ok', 'timeout', 'unreachable', 'http_error', 'malformed'] as const;
export type WeatherFetchOutcome = (typeof WEATHER_FETCH_OUTCOMES)[number];

export const weatherFetches = new Counter({
  name: 'solar_weather_fetches_total',
  help: 'Forecast requests to the weather provider, by outcome (ok or why it failed)',
  labelNames: ['outcome'] as const,
  registers,
});

export const weatherFetchDuration = new Histogram({
  name: 'solar_weather_fetch_duration_seconds',
  help: 'Time a forecast request to the weather provider took, whatever its outcome',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

// ─── Exports (api) ───────────────────────────────────────────────────────────────────────────

export const exportStreamsActive = new SampledGauge<'format'>({
  name: 'solar_export_streams_active',
  help: 'Exports streaming now, by format (csv, xlsx)',
  labelNames: ['format'],
});

export const exportRows = new Counter({
  name: 'solar_export_rows_total',
  help: 'Telemetry rows read by exports (rate(): rows per second)',
  registers,
});

// ─── Database pool ───────────────────────────────────────────────────────────────────────────

/** `pool`: main (TypeORM's) or planned_once (the prepared reads' own); `state`: in_use or idle. */
export const dbPoolConnections = new SampledGauge<'pool' | 'state'>({
  name: 'solar_db_pool_connections',
  help: 'Open connections of a PostgreSQL pool, by pool and state (in_use, idle)',
  labelNames: ['pool', 'state'],
});

export const dbPoolMaxConnections = new SampledGauge<'pool'>({
  name: 'solar_db_pool_max_connections',
  help: 'Most connections a PostgreSQL pool opens',
  labelNames: ['pool'],
});

export const dbPoolWaiting = new SampledGauge<'pool'>({
  name: 'solar_db_pool_waiting_requests',
  help: 'Queries waiting for a connection of a PostgreSQL pool',
  labelNames: ['pool'],
});

// ─── Announced caches ────────────────────────────────────────────────────────────────────────

/** `cache`: the cache's name (SourceAccessCache, SessionCache, AccountCache); `result`: hit or miss. */
export const cacheLookups = new Counter({
  name: 'solar_cache_lookups_total',
  help: 'Lookups in an announced cache, by cache and result (hit: answered from memory)',
  labelNames: ['cache', 'result'] as const,
  registers,
});
