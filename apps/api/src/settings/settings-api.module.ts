import { Module } from '@nestjs/common';
import { SettingsModule } from '@solar/domain';
import { SettingsController } from './settings.controller';

@Module({ imports: [SettingsModule], controllers: [SettingsController] })
export class SettingsApiModule {}
