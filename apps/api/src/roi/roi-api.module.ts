import { Module } from '@nestjs/common';

/** kWh prices and return on investment (SPEC.md §4.6). */
@Module({})
export class RoiApiModule {}
