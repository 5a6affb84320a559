import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { AnnouncedCache, REDIS } from '@solar/redis';
import { SourceDeviceCredentials, SunSourceRepository } from '../sun-sources/sun-source.repository';

/** Channel on which every process hears that a source's credentials or state changed. */
export const credentialsChangedChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}sources:credentials-changed`;

export const CREDENTIALS_CACHE_TTL_MS = 30_000;

/**
 * The device channels ask for a source's credentials with every message; this keeps the
 * answers (sealed, as stored: a secret is opened only when compared) for 30 s. A change
 * (key or secret rotated, source switched off, deleted, its owner deleted) is announced on
 * Redis and every process forgets that source at once.
 */
@Injectable()
export class DeviceCredentialsCache implements OnApplicationShutdown {
  private readonly cache: AnnouncedCache<SourceDeviceCredentials | null>;

  constructor(
    private readonly sources: SunSourceRepository,
    @Inject(REDIS) redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cache = new AnnouncedCache({
      redis,
      redisUrl: config.redisUrl,
      channel: credentialsChangedChannel(config),
      ttlMs: CREDENTIALS_CACHE_TTL_MS,
      maxEntries: 100_000,
      name: DeviceCredentialsCache.name,
    });
  }

  lookup(sunSourceId: string): Promise<SourceDeviceCredentials | null> {
    return this.cache.lookup(sunSourceId, () => this.sources.findDeviceCredentials(sunSourceId));
  }

  /** After a change to the source: forgotten here at once, and by every other process when it hears. */
  forget(sunSourceId: string): Promise<void> {
    return this.cache.forget(sunSourceId);
  }

  onApplicationShutdown(): Promise<void> {
    return this.cache.close();
  }
}
