import { Injectable } from '@nestjs/common';
import { HealthCheck } from '@solar/platform';
import { BrokerConnection } from './broker-connection';

@Injectable()
export class BrokerHealthCheck implements HealthCheck {
  readonly name = 'broker';

  constructor(private readonly connection: BrokerConnection) {}

  async check(): Promise<void> {
    if (!this.connection.connected) throw new Error('not connected to the MQTT broker');
  }

  /** Messages held unacknowledged, and whether intake is paused at the cap (still healthy). */
  details(): object {
    return this.connection.intake();
  }
}
