import { parser } from '@prometheus-io/lezer-promql';
import { load } from 'js-yaml';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { AppConfig, loadConfig } from '@solar/config';
import { exportedFamilyNames, exportedSeriesNames, METRICS_PATH } from '@solar/monitoring';
import { containerPort, readCompose, requiredVariables } from './support/compose-file';

/**
 * docker/'s monitoring against the apps: every series the Grafana dashboard and the alert rules
 * query is one the apps export (the names come from the metric registry itself), and
 * Prometheus scrapes each app where its configuration under compose serves the metrics.
 */
const dockerDir = join(__dirname, '..', 'docker');
const read = (path: string) => readFileSync(join(dockerDir, path), 'utf8');

/** Made by Prometheus for every target, not exported by the apps. */
const PROMETHEUS_SERIES = ['up'];
/** Grafana's variables, as it substitutes them before sending a query. */
const GRAFANA_VARIABLES: Record<string, string> = {
  $__rate_interval: '1m',
  $__interval: '15s',
  $__range: '1h',
};

/** The metric names an expression selects; throws on anything PromQL does not parse. */
function selectedMetrics(expression: string): string[] {
  let text = expression;
  for (const [variable, value] of Object.entries(GRAFANA_VARIABLES)) text = text.split(variable).join(value);
  const names: string[] = [];
  const problems: number[] = [];
  parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) problems.push(node.from);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        names.push(text.slice(node.from, node.to));
    },
  });
  if (problems.length > 0) throw new Error(`not PromQL at ${problems.join(', ')}: ${text}`);
  return names;
}

interface Panel {
  title?: string;
  type: string;
  panels?: Panel[];
  targets?: Array<{ expr: string }>;
}

const dashboards = readdirSync(join(dockerDir, 'grafana/dashboards'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({
    file,
    dashboard: JSON.parse(read(`grafana/dashboards/${file}`)) as { panels: Panel[] },
  }));
const panelsOf = (panels: Panel[]): Panel[] =>
  panels.flatMap((panel) => [panel, ...panelsOf(panel.panels ?? [])]);

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const alertRules = (
  load(read('prometheus/alerts.yml')) as { groups: Array<{ rules: AlertRule[] }> }
).groups.flatMap((group) => group.rules);

interface ScrapeJob {
  job_name: string;
  metrics_path?: string;
  dns_sd_configs?: Array<{ names: string[]; type?: string; port: number }>;
  static_configs?: Array<{ targets: string[] }>;
}
const prometheusConfig = load(read('prometheus/prometheus.yml')) as {
  rule_files?: string[];
  scrape_configs: ScrapeJob[];
};

const composeText = read('compose.yaml');
const compose = readCompose(
  composeText,
  Object.fromEntries(requiredVariables(composeText).map((name) => [name, 'a'.repeat(64)])),
);
const rawServices = (load(composeText) as { services: Record<string, { profiles?: string[] }> }).services;

/** Where each app serves its metrics, as read from its configuration. */
const METRICS_PORT: Record<string, (config: AppConfig) => number> = {
  api: (config) => config.apiMetricsPort,
  ingestor: (config) => config.ingestorPort,
  scheduler: (config) => config.schedulerPort,
};

describe('monitoring in docker/', () => {
  const exported = new Set([...exportedSeriesNames(), ...PROMETHEUS_SERIES]);

  it('the dashboard queries only series the apps export, in valid PromQL, in every panel', () => {
    expect(dashboards.length).toBeGreaterThan(0);
    for (const { file, dashboard } of dashboards) {
      const panels = panelsOf(dashboard.panels).filter((panel) => panel.type !== 'row');
      expect(panels.length).toBeGreaterThan(10);
      for (const panel of panels) {
        expect({ file, panel: panel.title, queries: (panel.targets ?? []).length > 0 }).toEqual({
          file,
          panel: panel.title,
          queries: true,
        });
        for (const { expr } of panel.targets ?? []) {
          const names = selectedMetrics(expr);
          expect({ panel: panel.title, expr, selects: names.length > 0 }).toEqual({
            panel: panel.title,
            expr,
            selects: true,
          });
          for (const name of names)
            expect({ panel: panel.title, name, exported: exported.has(name) }).toEqual({
              panel: panel.title,
              name,
              exported: true,
            });
        }
      }
    }
  });

  it("shows every one of the apps' own families somewhere on the dashboard", () => {
    const shown = new Set(
      dashboards.flatMap(({ dashboard }) =>
        panelsOf(dashboard.panels).flatMap((panel) =>
          (panel.targets ?? []).flatMap(({ expr }) => selectedMetrics(expr)),
        ),
      ),
    );
    const family = (series: string) => series.replace(/_(bucket|sum|count)$/, '');
    const shownFamilies = new Set([...shown].map(family));
    const missing = exportedFamilyNames().filter(
      (name) => name.startsWith('solar_') && !shownFamilies.has(name),
    );
    expect(missing).toEqual([]);
  });

  it('alert rules are valid PromQL over exported series, each with a duration, a severity and a summary', () => {
    expect(alertRules.length).toBeGreaterThan(0);
    for (const rule of alertRules) {
      for (const name of selectedMetrics(rule.expr)) {
        expect({ alert: rule.alert, name, exported: exported.has(name) }).toEqual({
          alert: rule.alert,
          name,
          exported: true,
        });
      }
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toEqual(expect.any(String));
    }
    expect(new Set(alertRules.map((rule) => rule.alert)).size).toBe(alertRules.length);
  });

  it.each([
    ['ingestion lag', 'solar_telemetry_ingestion_lag_seconds_bucket', ''],
    ['5xx rate', 'solar_http_request_duration_seconds_count', 'status=~"5.."'],
    ['refused-message rate', 'solar_telemetry_messages_total', 'outcome="refused"'],
    ['queue backlog', 'solar_queue_jobs', 'waiting'],
    ['pool saturation', 'solar_db_pool_connections', 'in_use'],
    ['pool waiting', 'solar_db_pool_waiting_requests', ''],
  ])('an alert watches the %s', (_what, series, condition) => {
    const watching = alertRules.filter(
      (rule) => selectedMetrics(rule.expr).includes(series) && rule.expr.includes(condition),
    );
    expect(watching.map((rule) => rule.alert)).not.toEqual([]);
  });

  it("Prometheus scrapes each app's service at the port and path its configuration serves metrics on, unpublished", () => {
    const apps = Object.keys(METRICS_PORT);
    expect(prometheusConfig.scrape_configs.map((job) => job.job_name).sort()).toEqual([...apps].sort());
    for (const app of apps) {
      const job = prometheusConfig.scrape_configs.find((candidate) => candidate.job_name === app)!;
      const service = [...compose.services.values()].find((candidate) =>
        (candidate.command ?? []).join(' ').includes(`dist/apps/${app}/`),
      );
      expect(service).toBeDefined();
      const config = loadConfig({ ...service!.environment, DATA_DIR: '/tmp' });
      const port = METRICS_PORT[app](config);
      // Every replica, found by DNS: the service name and the metrics port.
      expect({ app, path: job.metrics_path ?? '/metrics', sd: job.dns_sd_configs }).toEqual({
        app,
        path: METRICS_PATH,
        sd: [{ names: [service!.name], type: 'A', port }],
      });
      expect({ app, published: service!.ports.map(containerPort) }).not.toEqual({
        app,
        published: expect.arrayContaining([port]),
      });
      if (app === 'api') expect(port).not.toBe(config.port);
    }
  });

  it('runs Prometheus and Grafana in the optional monitoring profile, with these files mounted where they are read', () => {
    const apps = [...compose.services.values()].filter((service) => service.build);
    for (const app of apps)
      expect({ service: app.name, profiles: rawServices[app.name].profiles }).toEqual({
        service: app.name,
        profiles: undefined,
      });
    const prometheus = compose.services.get('prometheus')!;
    const grafana = compose.services.get('grafana')!;
    expect(rawServices.prometheus.profiles).toEqual(['monitoring']);
    expect(rawServices.grafana.profiles).toEqual(['monitoring']);

    const mountOf = (service: typeof prometheus, source: string) =>
      service.volumes.find((volume) => volume.source === source)?.target;
    const configFile = prometheus.command?.find((arg) => arg.startsWith('--config.file='))?.split('=')[1];
    expect(mountOf(prometheus, './prometheus/prometheus.yml')).toBe(configFile);
    const rulesMount = mountOf(prometheus, './prometheus/alerts.yml')!;
    expect(prometheusConfig.rule_files).toEqual([rulesMount]);

    const provisioning = mountOf(grafana, './grafana/provisioning');
    expect(provisioning).toBe('/etc/grafana/provisioning');
    const providers = load(read('grafana/provisioning/dashboards/solar.yml')) as {
      providers: Array<{ options: { path: string } }>;
    };
    expect(providers.providers.map((provider) => provider.options.path)).toEqual([
      mountOf(grafana, './grafana/dashboards'),
    ]);
    const datasources = load(read('grafana/provisioning/datasources/prometheus.yml')) as {
      datasources: Array<{ uid: string; url: string }>;
    };
    const listen = prometheus.ports.map(containerPort)[0];
    expect(datasources.datasources.map(({ uid, url }) => ({ uid, url }))).toEqual([
      { uid: 'prometheus', url: `http://${prometheus.name}:${listen}` },
    ]);
    // The dashboards' panels ask that data source.
    const uids = new Set(
      dashboards.flatMap(({ dashboard }) =>
        panelsOf(dashboard.panels)
          .filter((panel) => panel.type !== 'row')
          .map((panel) => (panel as { datasource?: { uid?: string } }).datasource?.uid),
      ),
    );
    expect([...uids]).toEqual(['prometheus']);
    expect(posix.basename(grafana.environment.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH)).toBe(
      dashboards[0].file,
    );
  });
});
