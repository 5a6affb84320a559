import { DynamicModule, Module, ModuleMetadata, Type } from '@nestjs/common';
import { HEALTH_CHECKS, HealthCheck } from './health-check';
import { HealthController } from './health.controller';
import { DatabaseHealthCheck, RedisHealthCheck } from './standard-checks';

/** `GET /api/health` over PostgreSQL, Redis and whatever else the app adds. */
@Module({})
export class HealthModule {
  static forRoot(
    options: { checks?: Type<HealthCheck>[]; imports?: ModuleMetadata['imports'] } = {},
  ): DynamicModule {
    const checks = [DatabaseHealthCheck, RedisHealthCheck, ...(options.checks ?? [])];
    return {
      module: HealthModule,
      imports: options.imports ?? [],
      controllers: [HealthController],
      providers: [
        ...checks,
        { provide: HEALTH_CHECKS, inject: checks, useFactory: (...all: HealthCheck[]) => all },
      ],
    };
  }
}
