import { LATENCY_BUCKETS, TELEMETRY_STAGES } from '@solar/monitoring';
import { MetricsScrape, scrapeMetrics } from '@solar/testing';

/**
 * The api's own split of a message's wait over part of a run (`solar_telemetry_stage_duration_seconds`,
 * one series per step of the intake): what grew between two scrapes of its metrics.
 */
export interface IntakeStep {
  stage: string;
  messages: number;
  meanMs: number;
  /** The bound of the histogram's bucket that holds the 99th percentile: p99 ≤ this. */
  p99AtMostMs: number | null;
}

const FAMILY = 'solar_telemetry_stage_duration_seconds';

/** A scrape, or undefined without a url or an answer (the split is then left out). */
export function scrapeApiMetrics(url: string | undefined): Promise<MetricsScrape | undefined> {
  return url ? scrapeMetrics(url).catch(() => undefined) : Promise.resolve(undefined);
}

export function intakeSteps(
  before: MetricsScrape | undefined,
  after: MetricsScrape | undefined,
): IntakeStep[] {
  if (!before || !after || !after.families.has(FAMILY)) return [];
  const growth = (name: string, labels: Record<string, string>) =>
    after.value(name, labels) - before.value(name, labels);
  return TELEMETRY_STAGES.map((stage) => {
    const messages = growth(`${FAMILY}_count`, { stage });
    const seconds = growth(`${FAMILY}_sum`, { stage });
    const p99Bound = LATENCY_BUCKETS.find(
      (le) => growth(`${FAMILY}_bucket`, { stage, le: String(le) }) >= 0.99 * messages,
    );
    return {
      stage,
      messages,
      meanMs: messages > 0 ? (seconds / messages) * 1000 : 0,
      p99AtMostMs: messages > 0 && p99Bound !== undefined ? p99Bound * 1000 : null,
    };
  });
}

/**
 * The api's event loop over the window a scrape closes: how long prom-client's 10 ms timer
 * (`monitorEventLoopDelay`, `nodejs_eventloop_lag_*`) took between firings, 10 ms when the loop
 * is free. prom-client restarts that histogram at every scrape, so `after` covers the time since
 * the scrape before it. Beside the intake's steps it tells a busy loop (intervals far above
 * 10 ms) from requests waiting on Redis or PostgreSQL while the loop is free.
 */
export interface EventLoopIntervals {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export function eventLoopIntervals(after: MetricsScrape | undefined): EventLoopIntervals | undefined {
  if (!after?.families.has('nodejs_eventloop_lag_p99_seconds')) return undefined;
  const ms = (statistic: string) =>
    Math.round(after.value(`nodejs_eventloop_lag_${statistic}_seconds`) * 10_000) / 10;
  return { p50Ms: ms('p50'), p99Ms: ms('p99'), maxMs: ms('max') };
}
