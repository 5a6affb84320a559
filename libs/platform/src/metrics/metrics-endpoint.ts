import { Controller, Get, Module, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Public } from '@solar/auth';
import { METRICS_PATH, metricsExposition } from '@solar/monitoring';

/** `GET /metrics` on the app's own HTTP server: the ingestor's and the scheduler's internal ports. */
@ApiExcludeController()
@Controller()
export class MetricsController {
  @Public()
  @Get(METRICS_PATH.slice(1))
  async metrics(@Res() response: Response): Promise<void> {
    const { contentType, body } = await metricsExposition();
    // As prom-client words it: Express's `send` would rewrite the type's parameters.
    response.writeHead(200, { 'Content-Type': contentType }).end(body);
  }
}

@Module({ controllers: [MetricsController] })
export class MetricsEndpointModule {}

/**
 * A server of its own answering only `GET /metrics` (the api's, kept off its public port), on
 * all interfaces so that Prometheus reaches it from another container. Anything else: 404.
 */
export async function listenForMetrics(port: number, host?: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ message: 'Not found' }));
      return;
    }
    metricsExposition().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'Content-Type': contentType });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      () => {
        response.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify({ message: 'Internal server error' }));
      },
    );
  });
  server.listen(port, host);
  await once(server, 'listening');
  return server;
}

/** The port a server listens on (the one chosen when asked for port 0). */
export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
