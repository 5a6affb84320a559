import ExcelJS from 'exceljs';
import { Readable, Writable } from 'node:stream';
import { EnergyReadingsBefore, NO_READINGS_BEFORE } from '../energy/energy-increments';
import { EXPORT_HEADER, toExportRow } from './export-columns';
import { writeXlsxExport } from './xlsx-export-writer';

const FROM = new Date('2026-05-10T00:00:00Z');
const TO = new Date('2026-05-11T00:00:00Z');
const NOW = new Date('2026-06-01T12:00:00Z');

async function write(
  rows: Readable,
  truncated = false,
  readingsBefore: EnergyReadingsBefore = NO_READINGS_BEFORE,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  await writeXlsxExport(rows, destination, { from: FROM, to: TO, truncated, now: NOW, readingsBefore });
  return Buffer.concat(chunks);
}

async function load(body: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ArrayBuffer);
  return workbook;
}

const column = (name: string) => EXPORT_HEADER.indexOf(name) + 1;

describe('writeXlsxExport', () => {
  it('sheet Data: header, dates, numbers as numbers, text kept exactly as far as XML allows', async () => {
    const first = new Date('2026-05-10T08:00:00.123Z');
    const rows = [
      toExportRow(first, {
        stateOfCharge: 87.5,
        batteryCurrent: -12.5,
        solarCurrent: 1e-7,
        loadPower: 0.1 + 0.2,
        operatingMode: ' <Grid> & "eco"\u0001 ',
        deviceStatus: '=HYPERLINK("x")',
        faultCodes: ['F01', 'Süd ✓ 🌞'],
        warningCodes: [],
      }),
      toExportRow(new Date(first.getTime() + 10_000), { solarPower: 1520 }),
    ];
    const workbook = await load(await write(Readable.from(rows)));
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Data', 'Summary']);

    const data = workbook.getWorksheet('Data')!;
    expect(data.getRow(1).values).toEqual([undefined, ...EXPORT_HEADER]);
    const row = data.getRow(2);
    expect(row.getCell(1).value).toEqual(first);
    expect(row.getCell(column('stateOfCharge')).value).toBe(87.5);
    expect(row.getCell(column('batteryCurrent')).value).toBe(-12.5);
    expect(row.getCell(column('solarCurrent')).value).toBe(1e-7);
    expect(row.getCell(column('loadPower')).value).toBe(0.30000000000000004);
    expect(row.getCell(column('gridVoltage')).value).toBeNull();
    expect(row.getCell(column('operatingMode')).value).toBe(' <Grid> & "eco" ');
    expect(row.getCell(column('deviceStatus')).value).toBe('=HYPERLINK("x")');
    expect(row.getCell(column('faultCodes')).value).toBe('F01;Süd ✓ 🌞');
    expect(row.getCell(column('warningCodes')).value).toBeNull();
    expect(data.getRow(3).getCell(column('solarPower')).value).toBe(1520);
    expect(data.rowCount).toBe(3);
  });

  const summaryRows = () => [
    toExportRow(new Date('2026-05-10T10:00:00Z'), { solarPower: 100, dailyEnergyProduced: 2 }),
    toExportRow(new Date('2026-05-10T11:00:00Z'), { solarPower: 300, dailyEnergyProduced: 3 }),
  ];

  async function summaryOf(body: Buffer): Promise<Map<string, ExcelJS.CellValue[]>> {
    const summary = (await load(body)).getWorksheet('Summary')!;
    const byLabel = new Map<string, ExcelJS.CellValue[]>();
    summary.eachRow((row) => {
      byLabel.set(
        row.getCell(1).text,
        [2, 3, 4, 5, 6].map((index) => row.getCell(index).value),
      );
    });
    return byLabel;
  }

  it('sheet Summary: range, records, truncation, timestamps, energy and the per-field table', async () => {
    const byLabel = await summaryOf(await write(Readable.from(summaryRows()), true));
    expect(byLabel.get('Range start')?.[0]).toEqual(FROM);
    expect(byLabel.get('Range end (exclusive)')?.[0]).toEqual(TO);
    expect(byLabel.get('Records')?.[0]).toBe(2);
    expect(byLabel.get('Truncated')?.[0]).toBe(true);
    expect(byLabel.get('First timestamp')?.[0]).toEqual(new Date('2026-05-10T10:00:00Z'));
    expect(byLabel.get('Last timestamp')?.[0]).toEqual(new Date('2026-05-10T11:00:00Z'));
    // The daily counter's first reading counts from zero: 2 + (3 − 2).
    expect(byLabel.get('Energy produced (kWh)')?.[0]).toBe(3);
    expect(byLabel.get('Energy produced from')?.[0]).toBe('counter');
    expect(byLabel.get('Energy consumed (kWh)')?.[0]).toBeNull();
    expect(byLabel.get('Energy consumed from')?.[0]).toBeNull();
    expect(byLabel.get('solarPower')).toEqual(['W', 2, 200, 100, 300]);
    expect(byLabel.get('operatingMode')).toBeUndefined();
  });

  it('sheet Summary: the first records count from the readings before the range', async () => {
    // 1 kWh just before midnight and 2 after: the counter did not restart at midnight, so
    // only the day's own rise (3 − 2) is the day's.
    const before: EnergyReadingsBefore = {
      ...NO_READINGS_BEFORE,
      produced: { counter: { at: Date.parse('2026-05-09T23:50:00Z'), value: 1 }, power: null },
    };
    const byLabel = await summaryOf(await write(Readable.from(summaryRows()), false, before));
    expect(byLabel.get('Energy produced (kWh)')?.[0]).toBe(1);
  });

  it('an empty range still makes a complete workbook', async () => {
    const workbook = await load(await write(Readable.from([])));
    expect(workbook.getWorksheet('Data')!.rowCount).toBe(1);
  });

  it('fails with the error of its rows, destroying them', async () => {
    const failure = new Error('connection lost');
    const rows = new Readable({
      objectMode: true,
      read() {
        this.push(toExportRow(new Date(), { solarPower: 1 }));
        this.destroy(failure);
      },
    });
    await expect(write(rows)).rejects.toBe(failure);
    expect(rows.destroyed).toBe(true);
  });
});
