import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { REDIS } from '@solar/redis';
import { SourceDeviceCredentials, SunSourceRepository } from '../sun-sources/sun-source.repository';

/** Channel on which every process hears that a source's credentials or state changed. */
export const credentialsChangedChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}sources:credentials-changed`;

/** Bounds staleness should a change notice be lost (Redis down at the wrong moment). */
export const CREDENTIALS_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 100_000;

interface Entry {
  credentials: SourceDeviceCredentials | null;
  expiresAt: number;
}

/**
 * The device channels ask for a source's credentials with every message; this keeps the
 * answers (sealed, as stored: a secret is opened only when compared) for 30 s. A change
 * (key or secret rotated, source switched off, deleted, its owner deleted) is announced on
 * Redis and every process forgets that source at once. Nothing is cached while the change
 * channel is not subscribed, and everything is forgotten when it reconnects, since notices
 * may have been missed meanwhile.
 */
@Injectable()
export class DeviceCredentialsCache implements OnApplicationShutdown {
  private readonly logger = new Logger(DeviceCredentialsCache.name);
  private readonly entries = new Map<string, Entry>();
  private subscriber: Redis | undefined;
  private listening = false;
  /** Moves on with every change heard: a lookup that started before one caches nothing. */
  private changes = 0;
  private subscribing: Promise<void> | undefined;

  constructor(
    private readonly sources: SunSourceRepository,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async lookup(sunSourceId: string): Promise<SourceDeviceCredentials | null> {
    const now = Date.now();
    const cached = this.entries.get(sunSourceId);
    if (cached && cached.expiresAt > now) return cached.credentials;

    this.subscribing ??= this.subscribe();
    const changesBefore = this.changes;
    const credentials = await this.sources.findDeviceCredentials(sunSourceId);
    if (this.listening && this.changes === changesBefore) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(sunSourceId, { credentials, expiresAt: now + CREDENTIALS_CACHE_TTL_MS });
    }
    return credentials;
  }

  /** After a change to the source: forgotten here at once, and by every other process when it hears. */
  async forget(sunSourceId: string): Promise<void> {
    this.changes += 1;
    this.entries.delete(sunSourceId);
    try {
      await this.redis.publish(credentialsChangedChannel(this.config), sunSourceId);
    } catch (error) {
      this.logger.warn({ err: error, sunSourceId }, 'could not announce a credentials change');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.listening = false;
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  // A subscribed connection can do nothing else: one of its own, opened on first use.
  private async subscribe(): Promise<void> {
    const channel = credentialsChangedChannel(this.config);
    const subscriber = new Redis(this.config.redisUrl, { lazyConnect: true, autoResubscribe: false });
    this.subscriber = subscriber;
    subscriber.on('error', (error) => this.logger.warn({ err: error }, 'Redis subscriber error'));
    subscriber.on('message', (from: string, sunSourceId: string) => {
      if (from !== channel) return;
      this.changes += 1;
      this.entries.delete(sunSourceId);
    });
    subscriber.on('close', () => {
      this.listening = false;
      this.changes += 1;
      this.entries.clear();
    });
    // Also after every reconnect: notices sent while away are lost, so start from nothing.
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => {
          this.entries.clear();
          this.listening = true;
        },
        (error: unknown) => this.logger.warn({ err: error }, 'cannot subscribe to credentials changes'),
      );
    });
    await subscriber.connect().catch((error: unknown) => {
      this.logger.warn({ err: error }, 'credentials cache off until Redis answers');
    });
  }
}
