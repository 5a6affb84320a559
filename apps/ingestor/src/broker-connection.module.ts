import { Global, Module } from '@nestjs/common';
import { BrokerConnection } from './broker-connection';

@Global()
@Module({ providers: [BrokerConnection], exports: [BrokerConnection] })
export class BrokerConnectionModule {}
