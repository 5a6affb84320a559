import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '@solar/redis';
import { HealthCheck } from './health-check';

@Injectable()
export class DatabaseHealthCheck implements HealthCheck {
  readonly name = 'database';

  constructor(private readonly dataSource: DataSource) {}

  async check(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}

@Injectable()
export class RedisHealthCheck implements HealthCheck {
  readonly name = 'redis';

  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async check(): Promise<void> {
    await this.redis.ping();
  }
}
