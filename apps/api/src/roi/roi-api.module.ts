import { Module } from '@nestjs/common';
import { KwhPricesModule, RoiModule } from '@solar/domain';
import { RoiController } from './roi.controller';

/** kWh prices and return on investment. */
@Module({ imports: [KwhPricesModule, RoiModule], controllers: [RoiController] })
export class RoiApiModule {}
