import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBox } from '@solar/core';
import { PowerGroupsModule } from '../power-groups/power-groups.module';
import { DeviceDisconnector } from './device-disconnector';
import { EmqxKicks } from './emqx-kicks';
import { SourceAccessCache } from './source-access-cache';
import { SourceCredentials } from './source-credentials';
import { SunSourceEntity } from './sun-source.entity';
import { SunSourceRepository } from './sun-source.repository';
import { SunSourcesService } from './sun-sources.service';

@Module({
  imports: [TypeOrmModule.forFeature([SunSourceEntity]), PowerGroupsModule],
  providers: [
    SunSourceRepository,
    SecretBox,
    SourceCredentials,
    EmqxKicks,
    DeviceDisconnector,
    SourceAccessCache,
    SunSourcesService,
  ],
  exports: [
    SunSourceRepository,
    SourceCredentials,
    SunSourcesService,
    SourceAccessCache,
    DeviceDisconnector,
    EmqxKicks,
  ],
})
export class SunSourcesModule {}
