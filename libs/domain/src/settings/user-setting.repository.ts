import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { UserSettingEntity } from './user-setting.entity';

@Injectable()
export class UserSettingRepository {
  constructor(
    @InjectRepository(UserSettingEntity) private readonly settings: Repository<UserSettingEntity>,
  ) {}

  async find(userId: string, settingType: number): Promise<'0' | '1' | undefined> {
    return (await this.settings.findOneBy({ userId, settingType }))?.value;
  }

  async upsert(userId: string, settingType: number, value: '0' | '1'): Promise<void> {
    await this.settings.upsert({ userId, settingType, value }, ['userId', 'settingType']);
  }
}
