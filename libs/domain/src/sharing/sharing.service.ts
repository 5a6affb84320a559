import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '@solar/core';
import { SourceAccessCache } from '../sun-sources/source-access-cache';
import { SunSourceEntity } from '../sun-sources/sun-source.entity';
import { SunSourceRepository } from '../sun-sources/sun-source.repository';
import { SourceSharingEntity } from './source-sharing.entity';

export const SHARED_VIEWS = ['shareMonitor', 'shareWeather', 'shareForecast', 'shareReturns'] as const;
export type SharedView = (typeof SHARED_VIEWS)[number];

export type SharingFlags = { isEnabled: boolean } & Record<SharedView, boolean>;

/** What an owner shares publicly for one source: a master switch and one flag per view. */
export interface SharingConfiguration extends SharingFlags {
  sunSourceId: string;
}

/** One answer for "not shared" and "no such source": a stranger learns nothing. */
export const NOT_SHARED = 'Not found';

/** A source found shared, and what its owner shares of it. */
export interface SharedSource {
  source: SunSourceEntity;
  flags: SharingFlags;
}

const NOTHING_SHARED: SharingFlags = {
  isEnabled: false,
  shareMonitor: false,
  shareWeather: false,
  shareForecast: false,
  shareReturns: false,
};

@Injectable()
export class SharingService {
  constructor(
    @InjectRepository(SourceSharingEntity) private readonly sharing: Repository<SourceSharingEntity>,
    private readonly sources: SunSourceRepository,
    private readonly access: SourceAccessCache,
  ) {}

  /** Everything off until the owner says otherwise. */
  async get(ownerId: string, sunSourceId: string): Promise<SharingConfiguration> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    return this.configurationOf(sunSourceId);
  }

  async update(ownerId: string, sunSourceId: string, flags: SharingFlags): Promise<SharingConfiguration> {
    await this.access.assertOwnedBy(ownerId, sunSourceId);
    await this.sharing.upsert({ sunSourceId, ...pick(flags) }, ['sunSourceId']);
    return this.configurationOf(sunSourceId);
  }

  /**
   * The source, if its owner shares it at all and, when `view` is given, shares that view too;
   * otherwise "not found", exactly as for a source that does not exist.
   */
  async sharedSource(sunSourceId: string, view?: SharedView): Promise<SharedSource> {
    const [source, row] = await Promise.all([
      this.sources.findById(sunSourceId),
      this.sharing.findOneBy({ sunSourceId }),
    ]);
    if (!source || !row?.isEnabled || (view && !row[view])) throw new NotFoundError(NOT_SHARED);
    return { source, flags: pick(row) };
  }

  private async configurationOf(sunSourceId: string): Promise<SharingConfiguration> {
    const row = await this.sharing.findOneBy({ sunSourceId });
    return { sunSourceId, ...(row ? pick(row) : NOTHING_SHARED) };
  }
}

function pick(flags: SharingFlags): SharingFlags {
  return {
    isEnabled: flags.isEnabled,
    shareMonitor: flags.shareMonitor,
    shareWeather: flags.shareWeather,
    shareForecast: flags.shareForecast,
    shareReturns: flags.shareReturns,
  };
}
