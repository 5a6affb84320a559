import { Module } from '@nestjs/common';
import { SunSourcesModule } from '@solar/domain';
import { SunSourcesController } from './sun-sources.controller';

@Module({ imports: [SunSourcesModule], controllers: [SunSourcesController] })
export class SunSourcesApiModule {}
