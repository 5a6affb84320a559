import { Module } from '@nestjs/common';
import { PowerGroupsModule } from '@solar/domain';
import { PowerGroupsController } from './power-groups.controller';

@Module({ imports: [PowerGroupsModule], controllers: [PowerGroupsController] })
export class PowerGroupsApiModule {}
