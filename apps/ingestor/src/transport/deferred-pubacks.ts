import type { IPublishPacket, MqttClient } from 'mqtt';

type SendPacket = (
  packet: { cmd: string; messageId?: number },
  callback?: () => void,
  ...rest: unknown[]
) => void;

interface HeldAck {
  /** The connection the PUBLISH came on: its packet id means nothing on another one. */
  stream: unknown;
  settled: boolean;
  send: () => void;
}

/**
 * Acknowledgement after the write, without reading one message at a time.
 *
 * mqtt.js answers a QoS 1 PUBLISH with a PUBACK once `handleMessage`'s callback runs, and reads
 * the next incoming packet only after that PUBACK is written: delaying the callback until a
 * message is committed would process one message per commit. Instead, the PUBACK of a held
 * message is kept back here while the client reads on, and written once the message is settled
 * (stored or refused for good). PUBACKs go out in the order their PUBLISHes came, as MQTT
 * requires. A PUBACK whose connection has gone is dropped: the broker redelivers that message
 * on the next connection of the session, and storage answers the copy as a duplicate. Reading
 * on waits for `mayReadOn` (the in-flight cap), so at the cap the client stops reading and the
 * broker keeps what it has not sent.
 *
 * The one reach into mqtt.js internals, relied on as of mqtt 5.16 (lib/handlers/publish.js,
 * `case 1`): the client emits `message`, calls `handleMessage(packet, cb)`, and `cb` sends the
 * PUBACK through the private `_sendPacket(puback, done)`, where `done` lets the client take its
 * next packet. On upgrade check that path; deferred-pubacks.spec.ts fails if it changes.
 */
export class DeferredPubacks {
  /** Held by `hold`, taken by the PUBACK that follows it in the same turn. */
  private readonly pending = new Map<number, Promise<unknown>>();
  private readonly queue: HeldAck[] = [];

  constructor(
    private readonly client: MqttClient,
    private readonly mayReadOn: () => Promise<void>,
  ) {
    const internals = client as unknown as { _sendPacket: SendPacket };
    const send = internals._sendPacket;
    internals._sendPacket = (packet, done, ...rest) => {
      const settled = packet.cmd === 'puback' ? this.take(packet.messageId) : undefined;
      if (!settled) return send.call(client, packet, done, ...rest);
      this.enqueue(settled, () => send.call(client, packet));
      void this.mayReadOn().then(() => done?.());
    };
  }

  /**
   * Keeps the PUBACK of this QoS 1 message back until `settled` resolves (or rejects). Call it
   * from a `message` listener, synchronously.
   */
  hold(packet: Pick<IPublishPacket, 'qos' | 'messageId'>, settled: Promise<unknown>): void {
    if (packet.qos !== 1 || packet.messageId === undefined) return;
    this.pending.set(packet.messageId, settled);
  }

  /** PUBACKs waiting for their message, or for an earlier one. */
  get waiting(): number {
    return this.queue.length;
  }

  private take(messageId: number | undefined): Promise<unknown> | undefined {
    if (messageId === undefined) return undefined;
    const settled = this.pending.get(messageId);
    this.pending.delete(messageId);
    return settled;
  }

  private enqueue(settled: Promise<unknown>, send: () => void): void {
    const ack: HeldAck = { stream: this.client.stream, settled: false, send };
    this.queue.push(ack);
    const release = () => {
      ack.settled = true;
      this.flush();
    };
    settled.then(release, release);
  }

  private flush(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0];
      const current = head.stream === this.client.stream && this.client.connected;
      if (current && !head.settled) return;
      this.queue.shift();
      if (current) head.send();
    }
  }
}
