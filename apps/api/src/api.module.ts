import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule, RolesGuard, SessionGuard } from '@solar/auth';
import { AppConfig, ConfigModule } from '@solar/config';
import { DatabaseModule } from '@solar/database';
import { Clock, ClockModule } from '@solar/core';
import { SunSourcesModule } from '@solar/domain';
import { HealthModule, LoggingModule } from '@solar/platform';
import { RedisModule } from '@solar/redis';
import { AdminModule } from './admin/admin.module';
import { AuthApiModule } from './auth/auth-api.module';
import { ExportModule } from './export/export.module';
import { EmqxKicksHealthCheck } from './internal-mqtt/emqx-kicks.health-check';
import { InternalMqttModule } from './internal-mqtt/internal-mqtt.module';
import { MetricsModule } from './metrics/metrics.module';
import { ApiMetricsListener } from './monitoring/api-metrics-listener';
import { PowerGroupsApiModule } from './power-groups/power-groups-api.module';
import { PredictionsApiModule } from './predictions/predictions-api.module';
import { RoiApiModule } from './roi/roi-api.module';
import { SettingsApiModule } from './settings/settings-api.module';
import { SharingApiModule } from './sharing/sharing-api.module';
import { SunSourcesApiModule } from './sun-sources/sun-sources-api.module';
import { SyntheticDataModule } from './telemetry-data/synthetic-data/synthetic-data.module';
import { TelemetryDataModule } from './telemetry-data/telemetry-data.module';
import { TelemetryImportApiModule } from './telemetry-import/telemetry-import-api.module';
import { UploadModule } from './upload/upload.module';
import { WeatherApiModule } from './weather/weather-api.module';
import { WebhookModule } from './webhook/webhook.module';

export interface ApiModuleOptions {
  /** Replaces the system clock (tests). */
  clock?: Clock;
}

@Module({})
export class ApiModule {
  static forRoot(config: AppConfig, options: ApiModuleOptions = {}): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config, 'api'),
        DatabaseModule.forRoot(config),
        RedisModule.forRoot(config),
        options.clock ? ClockModule.with(options.clock) : ClockModule,
        AuthModule,
        // Failed EMQX disconnects being retried: only where there is an EMQX to disconnect through.
        HealthModule.forRoot({
          checks: config.emqx.apiUrl ? [EmqxKicksHealthCheck] : [],
          imports: [SunSourcesModule],
        }),
        AuthApiModule,
        AdminModule,
        SunSourcesApiModule,
        PowerGroupsApiModule,
        SettingsApiModule,
        UploadModule,
        WebhookModule,
        InternalMqttModule,
        MetricsModule,
        TelemetryDataModule,
        TelemetryImportApiModule,
        ExportModule,
        SyntheticDataModule,
        WeatherApiModule,
        RoiApiModule,
        SharingApiModule,
        PredictionsApiModule,
      ],
      providers: [
        // Deny by default: a session first, then the roles a route declares.
        { provide: APP_GUARD, useExisting: SessionGuard },
        { provide: APP_GUARD, useExisting: RolesGuard },
        ApiMetricsListener,
      ],
    };
  }
}
