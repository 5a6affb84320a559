import { connectAsync, IClientOptions, MqttClient } from 'mqtt';
import { MqttSource } from '@solar/testing';

/** What a device of `source` logs in with: its client id as username, its key (or another) as password. */
export const deviceLogin = (source: MqttSource, key = source.key): IClientOptions => ({
  clientId: source.clientId,
  username: source.clientId,
  password: key,
});

/**
 * The MQTT clients a test connects, none reconnecting on its own, all ended at once by `endAll`
 * (after each test, so that a failed test leaves no client behind).
 */
export class MqttClients {
  private readonly open: MqttClient[] = [];

  async connect(url: string, options: IClientOptions): Promise<MqttClient> {
    const client = await connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
    this.open.push(client);
    return client;
  }

  async endAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((client) => client.endAsync(true)));
  }
}
