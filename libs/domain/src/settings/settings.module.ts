import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SettingsService } from './settings.service';
import { UserSettingEntity } from './user-setting.entity';
import { UserSettingRepository } from './user-setting.repository';

@Module({
  imports: [TypeOrmModule.forFeature([UserSettingEntity])],
  providers: [UserSettingRepository, SettingsService],
  exports: [UserSettingRepository, SettingsService],
})
export class SettingsModule {}
