import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The one registry of every metric the apps export. Each app runs in a process of its own, so a
 * process-wide registry is the app's; Prometheus tells the apps apart by the target it scraped.
 */
export const metricsRegistry = new Registry();

/** Where every app answers Prometheus's scrape, on a port no deployment publishes (docs/operations.md). */
export const METRICS_PATH = '/metrics';

let processMetrics = false;

/** prom-client's process and Node.js metrics (CPU, memory, event loop, GC), once per process. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry });
}

/** The text a scrape answers: every metric of this process, in Prometheus's exposition format. */
export async function metricsExposition(): Promise<{ contentType: string; body: string }> {
  collectProcessMetrics();
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

/** The families the apps export: prom-client's process metrics and every `solar_` family. */
export function exportedFamilyNames(): string[] {
  collectProcessMetrics();
  return metricsRegistry.getMetricsAsArray().map((metric) => (metric as unknown as { name: string }).name);
}

/**
 * The names of every series the apps can export: each family's name, and for a histogram its
 * `_bucket`, `_sum` and `_count` series (what queries and alert rules may name).
 */
export function exportedSeriesNames(): string[] {
  collectProcessMetrics();
  return metricsRegistry.getMetricsAsArray().flatMap((metric) => {
    const { name, type } = metric as unknown as { name: string; type: string };
    if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
    if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
    return [name];
  });
}
