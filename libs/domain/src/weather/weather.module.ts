import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { SettingsModule } from '../settings/settings.module';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { OpenMeteoClient } from './open-meteo.client';
import { ScheduledWeatherRefresh } from './scheduled-weather-refresh';
import { WeatherRepository } from './weather.repository';
import { WeatherService } from './weather.service';

@Module({
  imports: [SunSourcesModule, SettingsModule],
  providers: [
    WeatherRepository,
    // A factory, so tests can override it with a client that gives up sooner.
    {
      provide: OpenMeteoClient,
      useFactory: (config: AppConfig) => new OpenMeteoClient(config),
      inject: [APP_CONFIG],
    },
    WeatherService,
    ScheduledWeatherRefresh,
  ],
  exports: [WeatherService, ScheduledWeatherRefresh],
})
export class WeatherModule {}
