import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { crc32, inflateRawSync } from 'node:zlib';
import { ZipStreamWriter } from './zip-stream-writer';

const MODIFIED = new Date('2026-06-01T12:34:56Z');

/** A destination that keeps what it gets; `delayMs` makes it a slow client. */
function collector(delayMs = 0, highWaterMark = 16 * 1024) {
  const chunks: Buffer[] = [];
  let received = 0;
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      received += chunk.length;
      if (delayMs > 0) setTimeout(callback, delayMs);
      else callback();
    },
  });
  return { stream, body: () => Buffer.concat(chunks), received: () => received };
}

interface ReadEntry {
  name: string;
  content: Buffer;
}

/**
 * An independent reader for what the writer produces: the end record, then each central
 * directory header, its local header, the inflated data checked against CRC and sizes, and the
 * data descriptor behind it.
 */
function readZip(zip: Buffer): ReadEntry[] {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let position = zip.readUInt32LE(end + 16);
  expect(position + zip.readUInt32LE(end + 12)).toBe(end);

  const entries: ReadEntry[] = [];
  for (let index = 0; index < count; index++) {
    expect(zip.readUInt32LE(position)).toBe(0x02014b50);
    const crc = zip.readUInt32LE(position + 16);
    const compressedSize = zip.readUInt32LE(position + 20);
    const size = zip.readUInt32LE(position + 24);
    const nameLength = zip.readUInt16LE(position + 28);
    const offset = zip.readUInt32LE(position + 42);
    const name = zip.toString('utf8', position + 46, position + 46 + nameLength);
    position += 46 + nameLength;

    expect(zip.readUInt32LE(offset)).toBe(0x04034b50);
    expect(zip.readUInt16LE(offset + 6) & 0x0808).toBe(0x0808); // data descriptor, UTF-8 names
    expect(zip.readUInt16LE(offset + 8)).toBe(8); // deflated
    expect(zip.toString('utf8', offset + 30, offset + 30 + nameLength)).toBe(name);
    const dataStart = offset + 30 + nameLength + zip.readUInt16LE(offset + 28);
    const content = inflateRawSync(zip.subarray(dataStart, dataStart + compressedSize));
    expect(content.length).toBe(size);
    expect(crc32(content)).toBe(crc);
    const descriptor = dataStart + compressedSize;
    expect(zip.readUInt32LE(descriptor)).toBe(0x08074b50);
    expect([
      zip.readUInt32LE(descriptor + 4),
      zip.readUInt32LE(descriptor + 8),
      zip.readUInt32LE(descriptor + 12),
    ]).toEqual([crc, compressedSize, size]);
    entries.push({ name, content });
  }
  return entries;
}

describe('ZipStreamWriter', () => {
  it('writes entries from texts and streams that an independent reader inflates intact', async () => {
    const destination = collector();
    const zip = new ZipStreamWriter(destination.stream, { modified: MODIFIED, level: 1 });
    const big = randomBytes(300_000).toString('hex');
    await zip.addEntry('a.xml', '<a>Süd ✓</a>');
    await zip.addEntry('folder/b.bin', Readable.from([Buffer.from([0, 1, 2]), 'three', big]));
    await zip.addEntry('empty.txt', '');
    await zip.finish();

    const entries = readZip(destination.body());
    expect(entries.map((entry) => entry.name)).toEqual(['a.xml', 'folder/b.bin', 'empty.txt']);
    expect(entries[0].content.toString('utf8')).toBe('<a>Süd ✓</a>');
    expect(
      entries[1].content.equals(Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(`three${big}`)])),
    ).toBe(true);
    expect(entries[2].content.length).toBe(0);
    expect(destination.stream.writableFinished).toBe(true);
  });

  it('reads its source only as fast as a slow destination takes the archive', async () => {
    const destination = collector(1, 4096);
    const zip = new ZipStreamWriter(destination.stream, { modified: MODIFIED, level: 1 });
    const pieces = 400;
    const piece = () => randomBytes(8192); // incompressible: what goes in must come out
    let produced = 0;
    let furthestAhead = 0;
    const source = new Readable({
      read() {
        furthestAhead = Math.max(furthestAhead, produced - destination.received());
        if (produced >= pieces * 8192) this.push(null);
        else {
          produced += 8192;
          this.push(piece());
        }
      },
    });
    await zip.addEntry('slow.bin', source);
    await zip.finish();
    expect(readZip(destination.body())[0].content.length).toBe(pieces * 8192);
    // 3.2 MB went through; the source never ran more than a few buffers ahead of the client.
    expect(furthestAhead).toBeLessThan(256 * 1024);
  });

  it('fails with ERR_STREAM_PREMATURE_CLOSE and destroys its source when the destination goes away', async () => {
    const destination = collector(1, 1024);
    const zip = new ZipStreamWriter(destination.stream, { modified: MODIFIED, level: 1 });
    const source = new Readable({
      read() {
        this.push(randomBytes(8192));
      },
    });
    setTimeout(() => destination.stream.destroy(), 20);
    await expect(zip.addEntry('endless.bin', source)).rejects.toMatchObject({
      code: 'ERR_STREAM_PREMATURE_CLOSE',
    });
    expect(source.destroyed).toBe(true);
  });
});
