import { Module } from '@nestjs/common';

/** Training and forecast jobs (SPEC.md §4.5). */
@Module({})
export class PredictionsApiModule {}
