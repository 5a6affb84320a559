import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@solar/config';
import { DatabaseModule } from '@solar/database';
import { ClockModule } from '@solar/domain';
import { HealthModule, LoggingModule } from '@solar/platform';
import { RedisModule } from '@solar/redis';
import { BrokerConnectionModule } from './broker-connection.module';
import { BrokerHealthCheck } from './broker-health.check';

@Module({})
export class IngestorModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: IngestorModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config, 'ingestor'),
        DatabaseModule.forRoot(config),
        RedisModule.forRoot(config),
        ClockModule,
        BrokerConnectionModule,
        HealthModule.forRoot({ checks: [BrokerHealthCheck] }),
      ],
    };
  }
}
