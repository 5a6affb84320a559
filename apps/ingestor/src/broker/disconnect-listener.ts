import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { disconnectChannel, SourceAccessCache } from '@solar/domain';
import { createRedisConnection } from '@solar/redis';
import { EmbeddedBroker } from './embedded-broker';

/**
 * Hears the api's "drop this source's devices" (key regenerated, source deleted or switched
 * off) on Redis and applies it to the embedded broker. A subscribed connection can do nothing
 * else, so it is a connection of its own; channel names carry the key prefix already.
 *
 * The source is forgotten by this process's source cache before its clients are dropped: the
 * api announces the change on another channel, heard on another connection, so without this a
 * dropped device reconnecting at once with its old key could still meet the old entry.
 */
@Injectable()
export class DisconnectListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DisconnectListener.name);
  private subscriber: Redis | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly broker: EmbeddedBroker,
    private readonly sourceAccess: SourceAccessCache,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const channel = disconnectChannel(this.config);
    const subscriber = createRedisConnection(this.config.redisUrl, 'device disconnect subscriber');
    this.subscriber = subscriber;
    subscriber.on('message', (from: string, message: string) => {
      if (from !== channel) return;
      const sunSourceId = parseSourceId(message);
      if (!sunSourceId) return this.logger.warn('malformed device disconnect message ignored');
      // Forgotten here synchronously (the announcement it also makes is harmless), then dropped.
      void this.sourceAccess.forget(sunSourceId);
      this.broker.disconnectSource(sunSourceId);
    });
    await subscriber.subscribe(channel);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}

function parseSourceId(message: string): string | undefined {
  try {
    const { sunSourceId } = JSON.parse(message) as { sunSourceId?: unknown };
    return typeof sunSourceId === 'string' ? sunSourceId : undefined;
  } catch {
    return undefined;
  }
}
