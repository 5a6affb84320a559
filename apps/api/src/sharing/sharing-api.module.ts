import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { RoiModule, SharingModule, WeatherModule } from '@solar/domain';
import { PredictionsModule } from '@solar/predictions';
import { REDIS } from '@solar/redis';
import { TelemetryQueryModule } from '@solar/telemetry';
import { PublicSharingController } from './public-sharing.controller';
import { PublicSharingService } from './public-sharing.service';
import { SharePageController } from './share-page/share-page.controller';
import { SharePageService } from './share-page/share-page.service';
import { SharingController } from './sharing.controller';

/** Per client address, across all api instances (counted in Redis). */
export const PUBLIC_REQUESTS_PER_MINUTE = 120;

@Module({
  imports: [
    SharingModule,
    TelemetryQueryModule,
    RoiModule,
    WeatherModule,
    PredictionsModule,
    ThrottlerModule.forRootAsync({
      inject: [REDIS],
      useFactory: (redis: Redis) => ({
        throttlers: [{ name: 'public', ttl: 60_000, limit: PUBLIC_REQUESTS_PER_MINUTE }],
        storage: new ThrottlerStorageRedisService(redis),
        errorMessage: 'Too many requests. Try again later.',
      }),
    }),
  ],
  controllers: [SharingController, PublicSharingController, SharePageController],
  providers: [PublicSharingService, SharePageService],
})
export class SharingApiModule {}
