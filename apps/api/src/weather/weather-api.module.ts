import { Module } from '@nestjs/common';
import { WeatherModule } from '@solar/domain';
import { WeatherController } from './weather.controller';

/** Weather forecasts per source. */
@Module({ imports: [WeatherModule], controllers: [WeatherController] })
export class WeatherApiModule {}
