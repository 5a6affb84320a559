import { Gauge } from 'prom-client';
import { metricsRegistry } from './registry';

/** One reading of a sampled gauge: a value, or values by label set. */
export type Sample<L extends string> = number | Array<{ labels: Partial<Record<L, string>>; value: number }>;
export type Sampler<L extends string> = () => Sample<L> | Promise<Sample<L>>;

/**
 * A gauge read at scrape time from whatever reports it (a pool, a broker, a queue), so that the
 * code being measured keeps plain numbers and pays nothing per event. `report` adds a sampler
 * and returns the function that removes it (at shutdown); the samplers' values are summed.
 */
export class SampledGauge<L extends string = never> {
  private readonly samplers = new Set<Sampler<L>>();

  constructor(config: { name: string; help: string; labelNames?: readonly L[] }) {
    const samplers = this.samplers;
    new Gauge<L>({
      ...config,
      labelNames: config.labelNames ?? [],
      registers: [metricsRegistry],
      async collect() {
        this.reset();
        for (const sampler of samplers) {
          let sample: Sample<L>;
          try {
            sample = await sampler();
          } catch {
            continue; // e.g. Redis down: the series is missing from this scrape, which alerts can see
          }
          if (typeof sample === 'number') this.inc(sample);
          else for (const { labels, value } of sample) this.inc(labels, value);
        }
      },
    });
  }

  report(sampler: Sampler<L>): () => void {
    this.samplers.add(sampler);
    return () => this.samplers.delete(sampler);
  }
}
