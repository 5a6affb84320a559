import { Module } from '@nestjs/common';
import { BrokerAccessClient } from './broker-access.client';
import { DisconnectListener } from './disconnect-listener';
import { EmbeddedBroker } from './embedded-broker';

/** Imported only with `EMBEDDED_BROKER=true`. */
@Module({ providers: [BrokerAccessClient, EmbeddedBroker, DisconnectListener], exports: [EmbeddedBroker] })
export class EmbeddedBrokerModule {}
