import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Server } from 'node:http';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { listenForMetrics, portOf } from '@solar/platform';

/**
 * The api's Prometheus metrics on `API_METRICS_PORT`, a listener of their own: the api's port is
 * the public one, and what the metrics tell (traffic, failures, pool pressure) is for the
 * operator only. Compose publishes the api's port and not this one (docs/operations.md).
 */
@Injectable()
export class ApiMetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async onApplicationBootstrap(): Promise<void> {
    this.server = await listenForMetrics(this.config.apiMetricsPort);
    new Logger(ApiMetricsListener.name).log({ msg: 'metrics listening', port: this.port });
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Where it listens (the port chosen, when `API_METRICS_PORT` is 0). */
  get port(): number {
    if (!this.server) throw new Error('the metrics listener has not started');
    return portOf(this.server);
  }
}
