import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { dbPoolConnections, dbPoolMaxConnections, dbPoolWaiting } from '@solar/monitoring';
import { pgPool, PreparedQueries } from './prepared-queries';

/**
 * The app's PostgreSQL pools in the metrics, read at scrape time: connections in use and idle,
 * the most it opens, and queries waiting for one (a pool at its max with queries waiting is
 * saturated: docs/operations.md).
 */
@Injectable()
export class PoolMetrics implements OnModuleInit, OnApplicationShutdown {
  private readonly stops: Array<() => void> = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly prepared: PreparedQueries,
  ) {}

  onModuleInit(): void {
    const pools = (): Array<[string, Pool]> => {
      const plannedOnce = this.prepared.plannedOnceConnections;
      return [
        ['main', pgPool(this.dataSource)],
        ...(plannedOnce ? [['planned_once', plannedOnce] as [string, Pool]] : []),
      ];
    };
    this.stops.push(
      dbPoolConnections.report(() =>
        pools().flatMap(([pool, { totalCount, idleCount }]) => [
          { labels: { pool, state: 'in_use' }, value: totalCount - idleCount },
          { labels: { pool, state: 'idle' }, value: idleCount },
        ]),
      ),
      dbPoolMaxConnections.report(() =>
        pools().map(([pool, { options }]) => ({ labels: { pool }, value: options.max ?? 10 })),
      ),
      dbPoolWaiting.report(() =>
        pools().map(([pool, { waitingCount }]) => ({ labels: { pool }, value: waitingCount })),
      ),
    );
  }

  onApplicationShutdown(): void {
    for (const stop of this.stops.splice(0)) stop();
  }
}
