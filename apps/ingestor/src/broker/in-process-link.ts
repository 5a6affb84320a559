import { Duplex } from 'node:stream';

/**
 * Two connected in-memory duplex streams: what one side writes, the other reads. The ingestor's
 * MQTT client talks to its embedded broker through such a pair instead of a loopback socket.
 * (Node 22 has `stream.duplexPair`; this project runs on Node 20.)
 */
export function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {
        // Data arrives through the other end's writes.
      },
      write(chunk: Buffer, _encoding, callback) {
        other().push(chunk);
        callback();
      },
      final(callback) {
        other().push(null);
        callback();
      },
      destroy(error, callback) {
        const peer = other();
        if (!peer.destroyed) peer.destroy();
        callback(error);
      },
    });
  ends.push(
    end(() => ends[1]),
    end(() => ends[0]),
  );
  return [ends[0], ends[1]];
}
