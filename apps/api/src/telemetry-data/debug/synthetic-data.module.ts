import { Module } from '@nestjs/common';

/** Admin+ synthetic telemetry: 30 days at once, or a live generator (SPEC.md §4.4). */
@Module({})
export class SyntheticDataModule {}
