import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBox } from '@solar/core';
import { DeviceDisconnector } from '../devices/device-disconnector';
import { EmqxKicks } from '../devices/emqx-kicks';
import { KwhPriceEntity } from '../prices/kwh-price.entity';
import { KwhPriceRepository } from '../prices/kwh-price.repository';
import { PowerGroupsModule } from '../power-groups/power-groups.module';
import { SourceAccessCache } from './source-access-cache';
import { SourceCredentials } from './source-credentials';
import { SunSourceEntity } from './sun-source.entity';
import { SunSourceRepository } from './sun-source.repository';
import { SunSourcesService } from './sun-sources.service';

@Module({
  imports: [TypeOrmModule.forFeature([SunSourceEntity, KwhPriceEntity]), PowerGroupsModule],
  providers: [
    SunSourceRepository,
    KwhPriceRepository,
    SecretBox,
    SourceCredentials,
    EmqxKicks,
    DeviceDisconnector,
    SourceAccessCache,
    SunSourcesService,
  ],
  exports: [
    SunSourceRepository,
    KwhPriceRepository,
    SourceCredentials,
    SunSourcesService,
    SourceAccessCache,
    DeviceDisconnector,
    EmqxKicks,
  ],
})
export class SunSourcesModule {}
