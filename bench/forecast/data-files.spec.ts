import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLines, linesOf, parseLines } from './data-files';
import { parsePlainCsv, readPlainCsv } from './plain-csv';
import { dataErrorMessage, unicodeText } from './spec-support';

describe('fileLines', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'bench-data-files-'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  const write = (name: string, content: string | Buffer) => {
    const path = join(directory, name);
    writeFileSync(path, content);
    return path;
  };
  const openFiles = () => readdirSync('/proc/self/fd').length;

  // Chunk sizes from 1 byte up split every line break, CRLF pair and multi-byte character somewhere.
  it.each([
    ['a header and rows, ending in a line break', 'time,pv\n2025-01-01T00:00Z,1\n2025-01-01T01:00Z,2\n'],
    ['no final line break', 'time,pv\n2025-01-01T00:00Z,1'],
    ['CRLF line breaks and blank lines', 'time;pv\r\n\r\n2025-01-01T00:00Z;1,5\r\n\r\n'],
    ['a byte-order mark and characters of 2, 3 and 4 bytes', '\uFEFFzeit,°C,€,𝑥\nZürich,−3,5,6\n'],
    ['nothing', ''],
  ])('reads %s as the same lines as the whole text, at any chunk size', (_case, text) => {
    const path = write('lines.csv', text);
    const expected = [...linesOf(text)];
    for (const chunkBytes of [1, 2, 3, 5, 7, 64, 1 << 20]) {
      expect([...fileLines(path, chunkBytes)]).toEqual(expected);
    }
    expect(expected[0]?.startsWith('\uFEFF')).toBe(false);
  });

  it('reads UTF-16 little-endian text, as spreadsheets save "Unicode text", at any chunk size', () => {
    const text = 'time\tpv_kw\ttemperature_°c\r\n2025-01-01T00:00Z\t1,5\t−3\r\n2025-01-01T01:00Z\t2\t𝑥\r\n';
    const path = write('unicode.txt', unicodeText(text));
    for (const chunkBytes of [1, 2, 3, 5, 64]) {
      expect([...fileLines(path, chunkBytes)]).toEqual([...linesOf(text)]);
    }
  });

  it('reads a spreadsheet\'s "Unicode text" as the same table in UTF-8', () => {
    const rows = ['time\tpv_w'];
    for (let hour = 0; hour < 31 * 24; hour++)
      rows.push(`${new Date(Date.UTC(2025, 5, 1, hour)).toISOString()}\t${hour * 10}`);
    const text = `${rows.join('\r\n')}\r\n`;
    const utf8 = write('table.csv', text);
    const utf16 = write('table.txt', unicodeText(text));
    const options = { timeZone: null, stamps: 'start' as const };
    const fromUtf16 = readPlainCsv(utf16, options);
    expect(fromUtf16.pv!.size).toBe(31 * 24);
    expect(fromUtf16).toEqual(readPlainCsv(utf8, options));
  });

  it('refuses UTF-16 big-endian text, saying how to save it', () => {
    const path = write(
      'big-endian.txt',
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('time,pv\n', 'latin1')]),
    );
    expect(dataErrorMessage(() => [...fileLines(path)])).toMatch(/UTF-16 big-endian text; save it as UTF-8$/);
  });

  it.each([
    ['little-endian', (text: string) => Buffer.from(text, 'utf16le')],
    ['big-endian', (text: string) => Buffer.from(text, 'utf16le').swap16()],
  ])('refuses UTF-16 %s text without a byte-order mark, saying how to save it', (order, encode) => {
    const path = write(`no-mark-${order}.txt`, encode('timestamp\tpv_w\r\n2025-01-01T00:00Z\t1\r\n'));
    expect(dataErrorMessage(() => [...fileLines(path)])).toBe(
      `cannot read ${path}: UTF-16 ${order} text without a byte-order mark; ` +
        'save it as UTF-8 (or as UTF-16 with its byte-order mark)',
    );
  });

  it('reads the file anew at each pass', () => {
    const path = write('twice.csv', 'a\nb\nc\n');
    const lines = fileLines(path, 2);
    expect([...lines]).toEqual(['a', 'b', 'c', '']);
    expect([...lines]).toEqual(['a', 'b', 'c', '']);
  });

  it('says which file it cannot read, when it is read', () => {
    const lines = fileLines(join(directory, 'missing.csv'));
    expect(dataErrorMessage(() => [...lines])).toMatch(/^cannot read .*missing\.csv: ENOENT/);
    expect(dataErrorMessage(() => [...fileLines(directory)])).toMatch(/^cannot read .*: EISDIR/);
  });

  it('refuses a file whose line never ends, as not a CSV file', () => {
    const path = write('one-line.bin', Buffer.alloc((1 << 24) + 2, 'x'));
    expect(dataErrorMessage(() => [...fileLines(path)])).toMatch(
      /a line longer than 16777216 characters; not a CSV file/,
    );
  });

  it('closes the file when a parse stops early, at its end or at an error', () => {
    const path = write(
      'rows.csv',
      'time,pv\n2025-01-01T00:00Z,1\n2025-01-01T00:30Z,x\n2025-01-01T01:00Z,2\n',
    );
    const before = openFiles();
    expect(parseLines(fileLines(path), (first) => first)).toBe('time,pv');
    expect(openFiles()).toBe(before);
    expect(
      dataErrorMessage(() => parsePlainCsv(fileLines(path), { timeZone: null, stamps: 'start' }, path)),
    ).toMatch(/rows\.csv line 3: pv "x" is not a number/);
    expect(openFiles()).toBe(before);
  });
});
