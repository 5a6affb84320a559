import { IPublishPacket, MqttClient } from 'mqtt';
import mqttPacket, { Packet } from 'mqtt-packet';
import { duplexPair } from '../broker/in-process-link';
import { DeferredPubacks } from './deferred-pubacks';

const turn = () => new Promise((resolve) => setTimeout(resolve, 10));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * A real mqtt.js client against a scripted broker on an in-memory link: what the client reads,
 * and which PUBACKs it writes when.
 */
async function clientWithBroker(mayReadOn: () => Promise<void>) {
  const [clientEnd, brokerEnd] = duplexPair();
  const fromClient: Packet[] = [];
  const parser = mqttPacket.parser();
  parser.on('packet', (packet) => {
    fromClient.push(packet);
    if (packet.cmd === 'connect')
      brokerEnd.write(mqttPacket.generate({ cmd: 'connack', returnCode: 0, sessionPresent: false }));
  });
  brokerEnd.on('data', (chunk: Buffer) => parser.parse(chunk));
  const client = new MqttClient(() => clientEnd, { reconnectPeriod: 0, keepalive: 0, clientId: 'spec' });
  const acks = new DeferredPubacks(client, mayReadOn);
  const messages = new Map<number, ReturnType<typeof deferred>>();
  client.on('message', (_topic, _payload, packet: IPublishPacket) => {
    const settled = deferred();
    messages.set(packet.messageId!, settled);
    acks.hold(packet, settled.promise);
  });
  await new Promise((resolve) => client.once('connect', resolve));
  const publish = (...ids: number[]) =>
    brokerEnd.write(
      Buffer.concat(
        ids.map((messageId) =>
          mqttPacket.generate({
            cmd: 'publish',
            topic: 't',
            payload: Buffer.from('x'),
            qos: 1,
            dup: false,
            retain: false,
            messageId,
          }),
        ),
      ),
    );
  const pubacks = () =>
    fromClient.filter((packet) => packet.cmd === 'puback').map((packet) => packet.messageId);
  return { client, acks, messages, publish, pubacks };
}

describe('DeferredPubacks (relies on how mqtt.js 5 acknowledges QoS 1)', () => {
  it('reads on while PUBACKs wait for their messages, then sends them in arrival order', async () => {
    const { client, acks, messages, publish, pubacks } = await clientWithBroker(() => Promise.resolve());
    publish(1, 2, 3);
    await turn();
    expect([...messages.keys()]).toEqual([1, 2, 3]);
    expect(pubacks()).toEqual([]);
    expect(acks.waiting).toBe(3);

    messages.get(2)!.resolve();
    await turn();
    expect(pubacks()).toEqual([]);
    messages.get(1)!.resolve();
    await turn();
    expect(pubacks()).toEqual([1, 2]);
    messages.get(3)!.resolve();
    await turn();
    expect(pubacks()).toEqual([1, 2, 3]);
    expect(acks.waiting).toBe(0);
    await client.endAsync(true);
  });

  it('stops reading while it may not read on, and resumes after', async () => {
    const gate = deferred();
    const { client, messages, publish } = await clientWithBroker(() => gate.promise);
    publish(1, 2);
    await turn();
    expect([...messages.keys()]).toEqual([1]);
    gate.resolve();
    await turn();
    expect([...messages.keys()]).toEqual([1, 2]);
    await client.endAsync(true);
  });

  it('drops a PUBACK whose connection has gone', async () => {
    const { client, messages, publish, pubacks } = await clientWithBroker(() => Promise.resolve());
    publish(7);
    await turn();
    await client.endAsync(true);
    messages.get(7)!.resolve();
    await turn();
    expect(pubacks()).toEqual([]);
  });
});
