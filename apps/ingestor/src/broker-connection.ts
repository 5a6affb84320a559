import { Injectable } from '@nestjs/common';

/** The ingestor's MQTT connection state, as its transport last reported it. */
@Injectable()
export class BrokerConnection {
  private status = 'disconnected';

  update(status: string): void {
    this.status = status;
  }

  get connected(): boolean {
    return this.status === 'connected';
  }
}
