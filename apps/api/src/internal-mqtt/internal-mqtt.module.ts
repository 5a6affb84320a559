import { Module } from '@nestjs/common';
import { DevicesModule, SunSourcesModule } from '@solar/domain';
import { EmqxKickRetries } from './emqx-kick-retries';
import { InternalMqttController } from './internal-mqtt.controller';

@Module({
  imports: [DevicesModule, SunSourcesModule],
  controllers: [InternalMqttController],
  providers: [EmqxKickRetries],
})
export class InternalMqttModule {}
