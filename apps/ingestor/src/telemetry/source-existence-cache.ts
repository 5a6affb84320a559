import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { ServiceUnavailableError, SunSourceRepository } from '@solar/domain';
import { REDIS } from '@solar/redis';

/** SPEC.md §8: the ingestion worker's source-existence cache lives 5 minutes. */
export const SOURCE_EXISTENCE_TTL_MS = 5 * 60 * 1000;

/** Under the app's Redis key prefix, which the shared client adds. */
export const sourceExistenceKey = (sunSourceId: string) => `ingestor:source-exists:${sunSourceId}`;

/**
 * "Does this MQTT source exist?", cached in Redis for 5 minutes either way so a flood for
 * unknown ids costs the database one lookup per id and window, and every ingestor shares the
 * answer. A source created (or switched to MQTT) just after an "absent" was cached is ignored
 * until the entry expires, as SPEC.md allows.
 */
@Injectable()
export class SourceExistenceCache {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly sources: SunSourceRepository,
  ) {}

  /** Throws `ServiceUnavailableError` when neither Redis nor the database can answer. */
  async exists(sunSourceId: string): Promise<boolean> {
    const key = sourceExistenceKey(sunSourceId);
    const cached = await this.redis.get(key).catch((error: unknown) => unavailable(error));
    if (cached !== null) return cached === '1';

    const source = await this.sources.findAccess(sunSourceId).catch((error: unknown) => unavailable(error));
    const exists = source?.connectionType === 'MQTT';
    // Best effort: without the entry the next message simply asks the database again.
    await this.redis.set(key, exists ? '1' : '0', 'PX', SOURCE_EXISTENCE_TTL_MS).catch(() => undefined);
    return exists;
  }
}

function unavailable(error: unknown): never {
  throw new ServiceUnavailableError('Source lookup failed. Retry later.', { cause: error });
}
