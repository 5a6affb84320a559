import { Module } from '@nestjs/common';
import { DevicesModule } from '@solar/domain';
import { InternalMqttController } from './internal-mqtt.controller';

@Module({ imports: [DevicesModule], controllers: [InternalMqttController] })
export class InternalMqttModule {}
