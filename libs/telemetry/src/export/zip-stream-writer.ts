import { Readable, Writable } from 'node:stream';
import { crc32, createDeflateRaw, DeflateRaw } from 'node:zlib';

const LOCAL_FILE_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_DIRECTORY_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Bit 3: sizes and CRC follow the data; bit 11: names are UTF-8. */
const FLAGS = 0x0008 | 0x0800;
const DEFLATED = 8;
const VERSION = 20;
const MAX_UINT32 = 0xffffffff;

interface WrittenEntry {
  name: Buffer;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/**
 * A ZIP archive (PKWARE APPNOTE 6.3) written front to back into a stream: each entry is a local
 * header, its deflated data and a data descriptor (CRC and sizes are known only at its end),
 * and the central directory closes the archive. Nothing is held beyond the piece being
 * compressed, and every write waits for the destination, so memory stays flat.
 *
 * No Zip64: an entry or archive that would pass 4 GiB fails rather than come out corrupt
 * (an export of 500,000 records stays far below unless every record holds kilobytes of codes).
 */
export class ZipStreamWriter {
  private written = 0;
  private readonly entries: WrittenEntry[] = [];
  private readonly dosTime: number;
  private readonly dosDate: number;
  /** Rejects once the destination closed before the archive was complete, or failed. */
  private readonly broken: Promise<never>;

  /**
   * `modified`: the entries' time stamp (UTC). `level`: the zlib level; 1 compresses spreadsheet
   * XML nearly as well as 6 at several times the speed.
   */
  constructor(
    private readonly destination: Writable,
    private readonly options: { modified: Date; level: number },
  ) {
    const at = options.modified;
    this.dosTime = (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | (at.getUTCSeconds() >> 1);
    this.dosDate = ((at.getUTCFullYear() - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate();
    this.broken = new Promise<never>((_resolve, reject) => {
      const onClose = () => {
        if (!destination.writableFinished) reject(prematureClose());
      };
      if (destination.destroyed) onClose();
      destination.once('close', onClose).once('error', reject);
    });
    // Nobody may be waiting when it rejects; every wait below races with it.
    this.broken.catch(() => undefined);
  }

  /**
   * Adds one entry: a text, or a stream of text or bytes (read only as fast as the destination
   * takes the compressed data). Resolves once the entry is in the destination; rejects if the
   * content fails or the destination is gone, having destroyed `content`.
   */
  async addEntry(name: string, content: string | Readable): Promise<void> {
    const entry: WrittenEntry = {
      name: Buffer.from(name, 'utf8'),
      crc: 0,
      compressedSize: 0,
      size: 0,
      offset: 0,
    };
    entry.offset = this.written;
    await this.put(this.localHeader(entry));

    const deflate = createDeflateRaw({ level: this.options.level });
    const copied = this.copy(deflate, entry);
    copied.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    try {
      for await (const chunk of typeof content === 'string'
        ? [content]
        : (content as AsyncIterable<unknown>)) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
        entry.crc = crc32(bytes, entry.crc);
        entry.size += bytes.length;
        if (entry.size > MAX_UINT32) throw new Error('a ZIP entry over 4 GiB needs Zip64');
        // `copied` fails first if the compressor fails, and it would never drain.
        if (!deflate.write(bytes)) await Promise.race([this.until(deflate, 'drain'), copied]);
      }
      deflate.end();
      await copied;
    } catch (error) {
      deflate.destroy();
      if (typeof content !== 'string') content.destroy();
      throw error;
    }
    await this.put(dataDescriptor(entry));
    this.entries.push(entry);
  }

  /** Writes the central directory and ends the destination; resolves when it has finished. */
  async finish(): Promise<void> {
    const start = this.written;
    for (const entry of this.entries)
      await this.put(centralDirectoryHeader(entry, this.dosTime, this.dosDate));
    const size = this.written - start;
    if (this.written > MAX_UINT32 || this.entries.length > 0xffff)
      throw new Error('a ZIP this large needs Zip64');

    const end = Buffer.alloc(22);
    end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(size, 12);
    end.writeUInt32LE(start, 16);
    this.destination.end(end);
    await this.until(this.destination, 'finish');
  }

  /** Compressed data from `deflate` to the destination, counted into `entry`. */
  private async copy(deflate: DeflateRaw, entry: WrittenEntry): Promise<void> {
    for await (const chunk of deflate as AsyncIterable<Buffer>) {
      entry.compressedSize += chunk.length;
      await this.put(chunk);
    }
    if (entry.compressedSize > MAX_UINT32) throw new Error('a ZIP entry over 4 GiB needs Zip64');
  }

  private async put(bytes: Buffer): Promise<void> {
    this.written += bytes.length;
    if (!this.destination.write(bytes)) await this.until(this.destination, 'drain');
  }

  /**
   * The event, or the reason the archive cannot be completed, whichever comes first. (When the
   * archive broke, the listener stays on an emitter that is about to be dropped anyway.)
   */
  private until(emitter: NodeJS.EventEmitter, event: string): Promise<void> {
    return Promise.race([new Promise<void>((resolve) => emitter.once(event, () => resolve())), this.broken]);
  }

  private localHeader(entry: WrittenEntry): Buffer {
    const header = Buffer.alloc(30 + entry.name.length);
    header.writeUInt32LE(LOCAL_FILE_HEADER, 0);
    header.writeUInt16LE(VERSION, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(DEFLATED, 8);
    header.writeUInt16LE(this.dosTime, 10);
    header.writeUInt16LE(this.dosDate, 12);
    // CRC and sizes (14..25) stay zero: they follow in the data descriptor.
    header.writeUInt16LE(entry.name.length, 26);
    entry.name.copy(header, 30);
    return header;
  }
}

function dataDescriptor(entry: WrittenEntry): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(DATA_DESCRIPTOR, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  descriptor.writeUInt32LE(entry.compressedSize, 8);
  descriptor.writeUInt32LE(entry.size, 12);
  return descriptor;
}

function centralDirectoryHeader(entry: WrittenEntry, dosTime: number, dosDate: number): Buffer {
  const header = Buffer.alloc(46 + entry.name.length);
  header.writeUInt32LE(CENTRAL_DIRECTORY_HEADER, 0);
  header.writeUInt16LE(VERSION, 4); // made by: MS-DOS, 2.0
  header.writeUInt16LE(VERSION, 6);
  header.writeUInt16LE(FLAGS, 8);
  header.writeUInt16LE(DEFLATED, 10);
  header.writeUInt16LE(dosTime, 12);
  header.writeUInt16LE(dosDate, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.compressedSize, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  // Extra field, comment, disk number, attributes (30..41): none.
  header.writeUInt32LE(entry.offset, 42);
  entry.name.copy(header, 46);
  return header;
}

/** The error `stream.pipeline` reports when a destination closes early, so callers see one kind. */
export function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
