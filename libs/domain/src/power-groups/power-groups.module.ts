import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PowerGroupEntity } from './power-group.entity';
import { PowerGroupRepository } from './power-group.repository';
import { PowerGroupsService } from './power-groups.service';

@Module({
  imports: [TypeOrmModule.forFeature([PowerGroupEntity])],
  providers: [PowerGroupRepository, PowerGroupsService],
  exports: [PowerGroupRepository, PowerGroupsService],
})
export class PowerGroupsModule {}
