import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '@solar/config';
import { AnnouncedCache, REDIS } from '@solar/redis';
import { NotFoundError } from '@solar/core';
import { ConnectionType } from './sun-source.entity';
import { SourceAccess, SourceHeading, SunSourceRepository } from './sun-source.repository';

/** Channel on which every process hears that a source changed or went. */
export const accessChangedChannel = (config: Pick<AppConfig, 'redisKeyPrefix'>) =>
  `${config.redisKeyPrefix}sources:access-changed`;

export const ACCESS_CACHE_TTL_MS = 30_000;
/**
 * Read in the last half of its 30 s, a source is reloaded in the background. The window must
 * be longer than the time between a device's messages (10 s at the throttle's pace), with some
 * room for jitter, or a steady device's reads could all miss it and its entry expire.
 */
export const ACCESS_CACHE_REFRESH_AHEAD = 0.5;

/** The form every route and topic takes a source id in; PostgreSQL reads other forms too. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Another user's source and no source at all read alike. */
export const SUN_SOURCE_NOT_FOUND = 'Sun source not found';

/**
 * What is asked of a source before anything else, over and over: who owns it (every read of its
 * telemetry), its heading (reports, exports) and how its devices authenticate (every message).
 * Kept for 30 s, credentials as stored (sealed, with their digests). Every change to a source
 * (key or secret rotated, switched off, edited, deleted, its owner deleted) is announced on
 * Redis and every process forgets that source at once.
 *
 * A fleet's devices all arrive cold after a restart: the misses of about a millisecond are read
 * in one statement (`findAccessMany`), and a source whose devices keep sending is reloaded in
 * the background before its entry expires, so it never falls cold again.
 */
@Injectable()
export class SourceAccessCache implements OnApplicationShutdown {
  private readonly cache: AnnouncedCache<SourceAccess | null>;

  constructor(
    private readonly sources: SunSourceRepository,
    @Inject(REDIS) redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cache = new AnnouncedCache({
      redis,
      redisUrl: config.redisUrl,
      channel: accessChangedChannel(config),
      ttlMs: ACCESS_CACHE_TTL_MS,
      refreshAhead: ACCESS_CACHE_REFRESH_AHEAD,
      name: SourceAccessCache.name,
      loadMany: async (ids) => {
        const found = new Map((await this.sources.findAccessMany(ids)).map((source) => [source.id, source]));
        return ids.map((id) => found.get(id) ?? null);
      },
    });
  }

  /**
   * The source `sunSourceId` names, or null when there is none. An id that is not a UUID names
   * none (and is not sent to PostgreSQL, which would refuse the whole batch it joined).
   */
  lookup(sunSourceId: string): Promise<SourceAccess | null> {
    if (!UUID.test(sunSourceId)) return Promise.resolve(null);
    // One key per source, as announced (PostgreSQL answers ids in lower case).
    return this.cache.lookup(sunSourceId.toLowerCase());
  }

  /**
   * The source of a device's message that came by `via`, if it may be taken: it exists, is
   * active and takes that transport; otherwise null. A failed lookup throws as it failed.
   */
  async admitted(sunSourceId: string, via: ConnectionType): Promise<SourceAccess | null> {
    const source = await this.lookup(sunSourceId);
    return source !== null && source.isActive && source.connectionType === via ? source : null;
  }

  /** The ownership check in front of every read of a source's telemetry, prices or sharing. */
  async assertOwnedBy(ownerId: string, sunSourceId: string): Promise<void> {
    await this.ownedHeading(ownerId, sunSourceId);
  }

  /** What a report or an export shows of an owner's source; not found when it is not theirs. */
  async ownedHeading(ownerId: string, sunSourceId: string): Promise<SourceHeading> {
    const access = await this.lookup(sunSourceId);
    if (access?.userId !== ownerId) throw new NotFoundError(SUN_SOURCE_NOT_FOUND);
    return { name: access.name, iconUrl: access.iconUrl };
  }

  /** After a change to the source: forgotten here at once, and by every other process when it hears. */
  forget(sunSourceId: string): Promise<void> {
    return this.cache.forget(sunSourceId.toLowerCase());
  }

  onApplicationShutdown(): Promise<void> {
    return this.cache.close();
  }
}
