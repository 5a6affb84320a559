import { Module } from '@nestjs/common';
import { DevicesModule, SunSourcesModule } from '@solar/domain';
import { DisconnectListener } from './disconnect-listener';
import { EmbeddedBroker } from './embedded-broker';

/** Imported only with `EMBEDDED_BROKER=true`. Devices are checked in process, by `DeviceAuthService`. */
@Module({
  imports: [DevicesModule, SunSourcesModule],
  providers: [EmbeddedBroker, DisconnectListener],
  exports: [EmbeddedBroker],
})
export class EmbeddedBrokerModule {}
