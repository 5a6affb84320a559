import { csvHeader, csvNumbers, csvRecord, csvText } from './csv-format';
import { toExportRow } from './export-columns';

describe('CSV cells (RFC 4180, formula neutralization)', () => {
  it.each([
    ['plain', 'Battery', 'Battery'],
    ['comma', 'a,b', '"a,b"'],
    ['quote', 'say "hi"', '"say ""hi"""'],
    ['line feed', 'two\nlines', '"two\nlines"'],
    ['carriage return inside', 'a\rb', '"a\rb"'],
    ['semicolon needs nothing', 'F1;F2', 'F1;F2'],
    ['formula =', '=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['formula +', '+1', "'+1"],
    ['formula -', '-W1', "'-W1"],
    ['formula @', '@cmd', "'@cmd"],
    ['leading tab', '\tx', "'\tx"],
    ['leading CR, then quoted', '\rx', `"'\rx"`],
    ['formula with a comma and quotes', '=HYPERLINK("a","b")', `"'=HYPERLINK(""a"",""b"")"`],
    ['an inner = is harmless', 'a=b', 'a=b'],
    ['unicode', 'Süd ✓', 'Süd ✓'],
  ])('%s', (_case, value, expected) => {
    expect(csvText(value)).toBe(expected);
  });

  it('null is an empty cell', () => {
    expect(csvText(null)).toBe('');
  });
});

describe('CSV numbers: the spelling of String(n)', () => {
  it.each([
    ['12.5,,0.30000000000000004,-3', '12.5,,0.30000000000000004,-3'],
    [',,', ',,'],
    ['1e-07,2', '1e-7,2'],
    ['0.5,1e-05', '0.5,0.00001'],
    ['-0,1', '0,1'],
    ['1,-0', '1,0'],
    ['-0.5,-0.25', '-0.5,-0.25'],
    ['NaN,Infinity', 'NaN,Infinity'],
  ])('%j → %j', (numbers, expected) => {
    expect(csvNumbers(numbers)).toBe(expected);
  });
});

describe('CSV records', () => {
  it('header: timestamp, then every field by its canonical name', () => {
    const header = csvHeader();
    expect(header.endsWith('\r\n')).toBe(true);
    const names = header.slice(0, -2).split(',');
    expect(names).toHaveLength(29);
    expect(names.slice(0, 3)).toEqual(['timestamp', 'stateOfCharge', 'stateOfHealth']);
    expect(names.slice(-5)).toEqual([
      'dailyEnergyConsumed',
      'operatingMode',
      'deviceStatus',
      'faultCodes',
      'warningCodes',
    ]);
  });

  it('a record: ISO timestamp, numbers in table order, empty nulls, codes joined, CRLF', () => {
    const row = toExportRow(new Date('2026-05-10T08:00:00.123Z'), {
      stateOfCharge: 87.5,
      batteryCurrent: -12.25,
      dailyEnergyConsumed: 4,
      operatingMode: 'Grid, "eco"',
      deviceStatus: '=1+1',
      faultCodes: ['F01', 'F02'],
      warningCodes: [],
    });
    const cells = ['2026-05-10T08:00:00.123Z', '87.5', '', '', '-12.25', ...Array<string>(19).fill(''), '4'];
    expect(csvRecord(row)).toBe(`${cells.join(',')},"Grid, ""eco""\",'=1+1,F01;F02,\r\n`);
  });
});
