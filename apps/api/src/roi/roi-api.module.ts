import { Module } from '@nestjs/common';
import { KwhPricesModule, RoiModule } from '@solar/domain';
import { MeasuredProductionModule } from '@solar/telemetry';
import { RoiController } from './roi.controller';

/** kWh prices and return on investment (its measured days: `MeasuredProductionModule`, global). */
@Module({ imports: [KwhPricesModule, RoiModule, MeasuredProductionModule], controllers: [RoiController] })
export class RoiApiModule {}
