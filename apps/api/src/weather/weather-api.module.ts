import { Module } from '@nestjs/common';

/** Weather forecasts per source (SPEC.md §4.7). */
@Module({})
export class WeatherApiModule {}
