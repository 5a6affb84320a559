/** One scrape of an app's `/metrics`, read as Prometheus reads it. */
export interface MetricsScrape {
  status: number;
  contentType: string | null;
  /** The families it declares (`# TYPE` lines). */
  families: Set<string>;
  /** The sum of the samples named `name` whose labels include `labels` (0 when none do). */
  value(name: string, labels?: Record<string, string>): number;
  /** Whether a sample named `name` with these labels is there at all. */
  has(name: string, labels?: Record<string, string>): boolean;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): { families: Set<string>; samples: Sample[] } {
  const families = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type) families.add(type[1]);
    const sample = line.startsWith('#') ? null : SAMPLE.exec(line);
    if (!sample) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of (sample[2] ?? '').matchAll(LABEL)) labels[name] = JSON.parse(`"${value}"`);
    samples.push({ name: sample[1], labels, value: Number(sample[3]) });
  }
  return { families, samples };
}

/** How much the samples named `name` (with `labels`) grew from one scrape to a later one. */
export function metricGrowth(
  before: MetricsScrape,
  after: MetricsScrape,
  name: string,
  labels?: Record<string, string>,
): number {
  return after.value(name, labels) - before.value(name, labels);
}

/** GETs `url` (an app's metrics endpoint) and parses what it answers. */
export async function scrapeMetrics(
  url: string,
  headers: Record<string, string> = {},
): Promise<MetricsScrape> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  const { families, samples } = parseMetrics(response.ok ? text : '');
  const matching = (name: string, labels: Record<string, string>) =>
    samples.filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    families,
    value: (name, labels = {}) => matching(name, labels).reduce((sum, sample) => sum + sample.value, 0),
    has: (name, labels = {}) => matching(name, labels).length > 0,
  };
}
