import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AppConfig, ConfigModule } from '@solar/config';
import { DatabaseModule } from '@solar/database';
import { ClockModule } from '@solar/domain';
import { HealthModule, LoggingModule } from '@solar/platform';
import { RedisModule } from '@solar/redis';

/** Crons and the job worker; the jobs themselves arrive with their capabilities. */
@Module({})
export class SchedulerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config, 'scheduler'),
        DatabaseModule.forRoot(config),
        RedisModule.forRoot(config),
        ClockModule,
        ScheduleModule.forRoot(),
        HealthModule.forRoot(),
      ],
    };
  }
}
