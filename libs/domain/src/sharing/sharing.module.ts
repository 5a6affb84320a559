import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SunSourcesModule } from '../sun-sources/sun-sources.module';
import { SourceSharingEntity } from './source-sharing.entity';
import { SharingService } from './sharing.service';

@Module({
  imports: [TypeOrmModule.forFeature([SourceSharingEntity]), SunSourcesModule],
  providers: [SharingService],
  exports: [SharingService],
})
export class SharingModule {}
