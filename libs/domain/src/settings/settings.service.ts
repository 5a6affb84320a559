import { Injectable } from '@nestjs/common';
import { BadRequestError } from '@solar/core';
import { UserSettingRepository } from './user-setting.repository';

/** The user setting types and their numeric codes. */
export const SettingType = { DarkMode: 0, AutoRunPredictions: 1, AutoUpdateWeatherData: 2 } as const;
export type SettingValue = '0' | '1';

const KNOWN_TYPES: readonly number[] = Object.values(SettingType);

@Injectable()
export class SettingsService {
  constructor(private readonly settings: UserSettingRepository) {}

  /** A setting never written reads as "0". */
  async get(userId: string, settingType: number): Promise<SettingValue> {
    assertKnownType(settingType);
    return (await this.settings.find(userId, settingType)) ?? '0';
  }

  async set(userId: string, settingType: number, value: SettingValue): Promise<SettingValue> {
    assertKnownType(settingType);
    await this.settings.upsert(userId, settingType, value);
    return value;
  }
}

function assertKnownType(settingType: number): void {
  if (!KNOWN_TYPES.includes(settingType)) throw new BadRequestError('settingType must be 0, 1 or 2');
}
