import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@solar/config';
import { DatabaseModule } from '@solar/database';
import { ClockModule } from '@solar/core';
import { SunSourcesModule } from '@solar/domain';
import { LoggingModule } from '@solar/platform';
import { RedisModule } from '@solar/redis';
import { TelemetryImporterModule } from '@solar/telemetry-import';

/** What `npm run cli -- import` needs: the importer on the ingestion path, and the sources. */
@Module({})
export class ImportCliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ImportCliModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config, 'cli'),
        DatabaseModule.forRoot(config),
        RedisModule.forRoot(config),
        ClockModule,
        SunSourcesModule,
        TelemetryImporterModule,
      ],
    };
  }
}
