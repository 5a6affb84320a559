import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@solar/config';
import { DatabaseModule } from '@solar/database';
import { ClockModule } from '@solar/core';
import { SunSourcesModule } from '@solar/domain';
import { HealthModule, LoggingModule, MetricsEndpointModule } from '@solar/platform';
import { RedisModule } from '@solar/redis';
import { TelemetryIngestionModule, TelemetryWarmUpModule } from '@solar/telemetry';
import { EmbeddedBrokerModule } from './broker/embedded-broker.module';
import { BrokerConnectionModule } from './broker-connection.module';
import { BrokerHealthCheck, IntakeHealthCheck } from './broker-health.check';
import { IngestorShutdown } from './ingestor-shutdown';
import { MqttTelemetryConsumer } from './telemetry/mqtt-telemetry-consumer.service';
import { TelemetryController } from './telemetry/telemetry.controller';
import { TelemetryMqttServer } from './transport/telemetry-mqtt.server';

@Module({})
export class IngestorModule {
  /** `transport` is the app's MQTT transport, created before the app so shutdown can stop it first. */
  static forRoot(config: AppConfig, transport: TelemetryMqttServer): DynamicModule {
    return {
      module: IngestorModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config, 'ingestor'),
        DatabaseModule.forRoot(config),
        RedisModule.forRoot(config),
        ClockModule,
        BrokerConnectionModule,
        HealthModule.forRoot({ checks: [BrokerHealthCheck, IntakeHealthCheck] }),
        // On the ingestor's own port, which no deployment publishes (docs/operations.md).
        MetricsEndpointModule,
        SunSourcesModule,
        TelemetryIngestionModule,
        TelemetryWarmUpModule,
        ...(config.mqtt.embeddedBroker ? [EmbeddedBrokerModule] : []),
      ],
      controllers: [TelemetryController],
      providers: [
        { provide: TelemetryMqttServer, useValue: transport },
        MqttTelemetryConsumer,
        IngestorShutdown,
      ],
    };
  }
}
