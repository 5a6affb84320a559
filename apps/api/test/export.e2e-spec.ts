import { INestApplication } from '@nestjs/common';
import ExcelJS from 'exceljs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { EXPORT_FIELDS, EXPORT_ROW_LIMIT, NUMERIC_FIELDS } from '@solar/telemetry';
import {
  createTestEnvironment,
  createWebhookSource,
  FakeClock,
  Http,
  signUp,
  TestEnvironment,
  waitFor,
} from '@solar/testing';
import { startApi } from './support/api-harness';

const NOW = new Date('2026-06-01T12:00:00Z');
const TODAY = '2026-06-01';
const DAY_MS = 86_400_000;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const HEADER = ['timestamp', ...EXPORT_FIELDS.map((field) => field.name)];

type StoredRow = Record<string, unknown> & { ts: Date };

/**
 * A strict RFC 4180 reader: CRLF record ends, quoted fields with doubled quotes; a bare CR or LF
 * outside quotes, a quote inside an unquoted field or a last record without CRLF is an error.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character === '"' && field === '') {
      let end = index + 1;
      for (;;) {
        const quote = text.indexOf('"', end);
        if (quote < 0) throw new Error('unterminated quoted field');
        if (text[quote + 1] === '"') {
          field += text.slice(end, quote + 1);
          end = quote + 2;
        } else {
          field += text.slice(end, quote);
          index = quote + 1;
          break;
        }
      }
      if (!/^(,|\r\n|$)/.test(text.slice(index, index + 2))) throw new Error('text after a closing quote');
      continue;
    }
    if (character === ',') {
      record.push(field);
      field = '';
      index++;
    } else if (character === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 2;
    } else if (character === '\r' || character === '\n' || character === '"') {
      throw new Error(`bare ${JSON.stringify(character)} at ${index}`);
    } else {
      field += character;
      index++;
    }
  }
  if (field !== '' || record.length > 0) throw new Error('last record not terminated by CRLF');
  return records;
}

/** What the CSV should hold for a stored value, as the issue states the rules. */
function expectedCsvCell(value: unknown): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = Array.isArray(value) ? value.join(';') : (value as string);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** A supertest parser that keeps any body as a Buffer. */
function binary(response: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const stream = response as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
}

async function loadWorkbook(body: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ArrayBuffer);
  return workbook;
}

function sheetRows(sheet: ExcelJS.Worksheet): ExcelJS.CellValue[][] {
  const rows: ExcelJS.CellValue[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => {
    rows.push(Array.from({ length: HEADER.length }, (_, index) => row.getCell(index + 1).value));
  });
  return rows;
}

describe('export', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let api: Http;
  let db: Client;
  let owner: { cookie: string; id: string };
  let stranger: { cookie: string };
  const clock = new FakeClock(NOW);

  beforeAll(async () => {
    env = await createTestEnvironment();
    ({ app, http: api } = await startApi(env.config, clock));
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    owner = await signUp(api, env.mail);
    stranger = await signUp(api, env.mail);
  });

  afterAll(async () => {
    await db.end();
    await app.close();
    await env.teardown();
  });

  const createSource = (name = 'Export test') => createWebhookSource(api, owner.cookie, { name });

  async function ingest(source: { id: string; secret: string }, at: Date, body: object): Promise<void> {
    const response = await api
      .post(`/api/webhook/sunsource/${source.id}`)
      .send({ key: source.secret, timestamp: at.toISOString(), ...body })
      .expect(200);
    expect(response.body).toEqual({ message: 'Data accepted', stored: true });
  }

  /** `count` rows 10 s apart from `start`, written by SQL: volume without the webhook's pace. */
  async function insertSeries(sunSourceId: string, start: Date, count: number): Promise<void> {
    const last = new Date(start.getTime() + (count - 1) * 10_000);
    await db.query(
      `SELECT ensure_telemetry_partition(month::date)
       FROM generate_series(date_trunc('month', $1::timestamptz AT TIME ZONE 'UTC'),
                            $2::timestamptz AT TIME ZONE 'UTC', interval '1 month') AS month`,
      [start, last],
    );
    await db.query(
      `INSERT INTO telemetry (sun_source_id, ts, state_of_charge, solar_power, battery_current,
         daily_energy_produced, operating_mode, fault_codes, raw)
       SELECT $1, $2::timestamptz + i * interval '10 seconds', (i % 101)::float8, i * 0.25,
         (i % 50) - 25.5, (i % 8640) / 100.0, 'Mode ' || (i % 7), ARRAY['F' || (i % 3)], '{}'::jsonb
       FROM generate_series(0, $3::int - 1) AS i`,
      [sunSourceId, start, count],
    );
  }

  async function storedRows(sunSourceId: string, from: Date, to: Date): Promise<StoredRow[]> {
    const { rows } = await db.query<StoredRow>(
      'SELECT * FROM telemetry WHERE sun_source_id = $1 AND ts >= $2 AND ts < $3 ORDER BY ts',
      [sunSourceId, from, to],
    );
    return rows;
  }

  function download(
    format: 'csv' | 'excel',
    sunSourceId: string,
    query: Record<string, string>,
    cookie = owner.cookie,
  ) {
    return api
      .get(`/api/export/${sunSourceId}/${format}`)
      .query(query)
      .set('Cookie', cookie)
      .buffer(true)
      .parse(binary);
  }

  const range = (from: Date, to: Date) => ({ startDate: from.toISOString(), endDate: to.toISOString() });

  describe('a source with every kind of value', () => {
    const start = new Date('2026-05-10T00:00:00Z');
    const end = new Date(start.getTime() + 60_000);
    let source: { id: string; secret: string };

    beforeAll(async () => {
      source = await createSource();
      const everyNumber = Object.fromEntries(
        NUMERIC_FIELDS.map((field, index) => [field.name, Math.min(field.max, index + 0.123456789012345)]),
      );
      await ingest(source, new Date(start.getTime() - 10_000), { solarPower: 1 }); // before the range
      await ingest(source, start, {
        ...everyNumber,
        batteryCurrent: -12.5,
        solarCurrent: 0.0000001,
        loadPower: 0.1 + 0.2,
        operatingMode: 'Battery, "eco"\nmode',
        deviceStatus: '=HYPERLINK("http://evil.example")',
        faultCodes: ['F01', 'F02'],
        warningCodes: '-W1, +W2',
      });
      await ingest(source, new Date(start.getTime() + 10_000), { solarPower: 1520 });
      await ingest(source, new Date(start.getTime() + 20_000), {
        solarPower: 0,
        deviceStatus: '@cmd',
        operatingMode: '+1',
        faultCodes: [],
      });
      await ingest(source, end, { solarPower: 99 }); // at endDate: excluded
    });

    it('CSV: header, then the stored rows of [startDate, endDate) cell by cell, oldest first', async () => {
      const response = await download('csv', source.id, range(start, end)).expect(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['x-export-truncated']).toBeUndefined();
      const body = response.body as Buffer;
      expect(body.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false); // no BOM

      const [header, ...records] = parseCsv(body.toString('utf8'));
      expect(header).toEqual(HEADER);
      expect(header).toHaveLength(29);
      const stored = await storedRows(source.id, start, end);
      expect(stored).toHaveLength(3);
      expect(records).toEqual(
        stored.map((row) => [
          row.ts.toISOString(),
          ...EXPORT_FIELDS.map((field) => expectedCsvCell(row[field.column])),
        ]),
      );
    });

    it('CSV: quoting, formula neutralization, full-precision numbers, nulls empty, codes joined', async () => {
      const text = (await download('csv', source.id, range(start, end)).expect(200)).body.toString('utf8');
      const lines = text.split('\r\n');
      expect(lines[1].startsWith(`${start.toISOString()},0.123456789012345,1.123456789012345,`)).toBe(true);
      expect(text).toContain(',-12.5,');
      expect(text).toContain(',1e-7,');
      expect(text).toContain(',0.30000000000000004,');
      expect(text).toContain(
        `,"Battery, ""eco""\nmode","'=HYPERLINK(""http://evil.example"")",F01;F02,'-W1;+W2\r\n`,
      );
      const second = parseCsv(`${lines[2]}\r\n`)[0];
      expect(second[0]).toBe(new Date(start.getTime() + 10_000).toISOString());
      expect(second.filter((cell) => cell !== '')).toEqual([second[0], '1520']);
      expect(lines[3].endsWith(",'+1,'@cmd,,")).toBe(true);
      expect(lines).toHaveLength(5); // header, 3 records, the empty rest after the last CRLF
    });

    it('Excel: sheets Data and Summary; Data holds the stored rows with dates, numbers and text', async () => {
      const response = await download('excel', source.id, range(start, end)).expect(200);
      expect(response.headers['content-type']).toBe(XLSX);
      const workbook = await loadWorkbook(response.body as Buffer);
      expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Data', 'Summary']);

      const [header, ...records] = sheetRows(workbook.getWorksheet('Data')!);
      expect(header).toEqual(HEADER);
      const stored = await storedRows(source.id, start, end);
      expect(records).toEqual(
        stored.map((row) => [
          row.ts,
          ...EXPORT_FIELDS.map((field) => {
            const value = row[field.column];
            return Array.isArray(value) ? value.join(';') || null : value;
          }),
        ]),
      );
      expect(records[0][0]).toBeInstanceOf(Date);
      // In a workbook text cells are never formulas: the text stays as the device sent it.
      expect(records[0][HEADER.indexOf('deviceStatus')]).toBe('=HYPERLINK("http://evil.example")');
    });
  });

  describe('Summary sheet', () => {
    it('per field count, average, minimum, maximum; energy from the counters over UTC days', async () => {
      const source = await createSource('Summary');
      const day1 = new Date('2026-05-20T00:00:00Z').getTime();
      const day2 = day1 + DAY_MS;
      // Day 1: 1.5 from zero, then + 2.75 and + 1.75; consumed 2, + 1, then a restart: + 2.5.
      // Day 2: both below the day before's last reading (restarted at midnight), then rising.
      const samples: [number, object][] = [
        [day1 + 10 * 3600_000, { solarPower: 100, dailyEnergyProduced: 1.5, dailyEnergyConsumed: 2 }],
        [day1 + 14 * 3600_000, { solarPower: 300, dailyEnergyProduced: 4.25, dailyEnergyConsumed: 3 }],
        [day2 - 10_000, { stateOfCharge: 50, dailyEnergyProduced: 6, dailyEnergyConsumed: 2.5 }],
        [day2 + 10_000, { solarPower: 0, dailyEnergyProduced: 0.1, dailyEnergyConsumed: 0.5 }],
        [day2 + 12 * 3600_000, { solarPower: 250, dailyEnergyProduced: 5.5, dailyEnergyConsumed: 4 }],
      ];
      for (const [at, body] of samples) await ingest(source, new Date(at), body);

      const response = await download('excel', source.id, range(new Date(day1), new Date(day2 + DAY_MS)));
      const summary = (await loadWorkbook(response.body as Buffer)).getWorksheet('Summary')!;
      const rows = new Map<string, ExcelJS.CellValue[]>();
      summary.eachRow((row) => {
        const values = [2, 3, 4, 5, 6].map((column) => row.getCell(column).value);
        rows.set(row.getCell(1).text, values);
      });

      expect(rows.get('Records')?.[0]).toBe(5);
      expect(rows.get('Truncated')?.[0]).toBe(false);
      expect(rows.get('First timestamp')?.[0]).toEqual(new Date(samples[0][0]));
      expect(rows.get('Last timestamp')?.[0]).toEqual(new Date(samples[4][0]));
      expect(rows.get('Energy produced (kWh)')?.[0]).toBeCloseTo(6 + 5.5, 12);
      expect(rows.get('Energy produced from')?.[0]).toBe('counter');
      expect(rows.get('Energy consumed (kWh)')?.[0]).toBeCloseTo(5.5 + 4, 12);
      expect(rows.get('Field')).toEqual(['Unit', 'Count', 'Average', 'Minimum', 'Maximum']);
      expect(rows.get('solarPower')).toEqual(['W', 4, 162.5, 0, 300]);
      expect(rows.get('stateOfCharge')).toEqual(['%', 1, 50, 50, 50]);
      expect(rows.get('dailyEnergyProduced')?.slice(0, 2)).toEqual(['kWh', 5]);
      expect(rows.get('dailyEnergyProduced')?.[2]).toBeCloseTo((1.5 + 4.25 + 6 + 0.1 + 5.5) / 5, 12);
      expect(rows.get('dailyEnergyConsumed')?.slice(0, 2)).toEqual(['kWh', 5]);
      expect(rows.get('gridVoltage')).toEqual(['V', 0, null, null, null]);
      expect(NUMERIC_FIELDS.every((field) => rows.has(field.name))).toBe(true);
    });
  });

  describe('range and parameters', () => {
    let sourceId: string;
    const start = new Date('2026-05-01T00:00:00Z');

    beforeAll(async () => {
      sourceId = (await createSource()).id;
    });

    it.each(['csv', 'excel'] as const)('%s: exactly 33 days is allowed', async (format) => {
      await download(format, sourceId, range(start, new Date(start.getTime() + 33 * DAY_MS))).expect(200);
    });

    it.each(['csv', 'excel'] as const)('%s: 33 days and 1 ms is refused', async (format) => {
      const response = await download(
        format,
        sourceId,
        range(start, new Date(start.getTime() + 33 * DAY_MS + 1)),
      );
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body.toString())).toEqual({ message: 'Export range exceeds 33 days' });
    });

    it.each([
      ['startDate missing', { endDate: '2026-05-02T00:00:00Z' }, 'startDate'],
      ['endDate missing', { startDate: '2026-05-01T00:00:00Z' }, 'endDate'],
      ['startDate not a date', { startDate: 'yesterday', endDate: '2026-05-02T00:00:00Z' }, 'startDate'],
      ['endDate impossible', { startDate: '2026-05-01', endDate: '2026-02-30' }, 'endDate'],
    ])('400 with errors when %s', async (_case, query, field) => {
      const response = await download('csv', sourceId, query);
      expect(response.status).toBe(400);
      expect(Object.keys(JSON.parse(response.body.toString()).errors)).toEqual([field]);
    });

    it.each([
      ['before', '2026-05-01T00:00:00Z', '2026-04-30T00:00:00Z'],
      ['equal to', '2026-05-01T00:00:00Z', '2026-05-01T00:00:00.000Z'],
    ])('400 when endDate is %s startDate', async (_case, startDate, endDate) => {
      const response = await download('excel', sourceId, { startDate, endDate });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body.toString())).toEqual({ message: 'endDate must be after startDate' });
    });

    it('a date without an offset is UTC; an empty range gives the header alone', async () => {
      const response = await download('csv', sourceId, {
        startDate: '2026-05-01',
        endDate: '2026-05-02T00:00',
      });
      expect(response.status).toBe(200);
      expect(response.body.toString()).toBe(`${HEADER.join(',')}\r\n`);
    });

    it('400 for a sun source id that is not a UUID', async () => {
      await download('csv', 'not-a-uuid', range(start, new Date(start.getTime() + DAY_MS))).expect(400);
    });
  });

  describe('ownership and sessions', () => {
    it.each(['csv', 'excel'] as const)(
      '%s: 404 for a source of another user or an unknown id, 401 without a session',
      async (format) => {
        const { id } = await createSource();
        const query = range(new Date('2026-05-01T00:00:00Z'), new Date('2026-05-02T00:00:00Z'));
        const foreign = await download(format, id, query, stranger.cookie);
        expect(foreign.status).toBe(404);
        expect(JSON.parse(foreign.body.toString())).toEqual({ message: 'Sun source not found' });
        const unknown = await download(format, '5b0c8b0e-8d47-4a53-9d39-4f8f2f3b4f11', query);
        expect(unknown.status).toBe(404);
        await api.get(`/api/export/${id}/${format}`).query(query).expect(401);
      },
    );
  });

  describe('file names', () => {
    it('Content-Disposition: unsafe characters become _, the UTF-8 name in filename*', async () => {
      const query = range(new Date('2026-05-01T00:00:00Z'), new Date('2026-05-02T00:00:00Z'));
      const roof = await createSource('Roof "A"/B ✓');
      const csv = await download('csv', roof.id, query).expect(200);
      expect(csv.headers['content-disposition']).toBe(
        `attachment; filename="export_Roof__A__B___${TODAY}.csv"; filename*=UTF-8''export_Roof__A__B___${TODAY}.csv`,
      );

      const south = await createSource('Dach Süd');
      const excel = await download('excel', south.id, query).expect(200);
      expect(excel.headers['content-disposition']).toBe(
        `attachment; filename="export_Dach_S_d_${TODAY}.xlsx"; filename*=UTF-8''export_Dach_S%C3%BCd_${TODAY}.xlsx`,
      );
    });
  });

  describe('volume', () => {
    const ROWS = 50_000;
    const start = new Date('2026-04-25T00:00:00Z');
    const end = new Date(start.getTime() + 33 * DAY_MS);
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await createSource('Volume')).id;
      await insertSeries(sourceId, start, ROWS);
    });

    it(`CSV streams ${ROWS} rows equal to the stored ones`, async () => {
      const response = await download('csv', sourceId, range(start, end)).expect(200);
      const records = parseCsv(response.body.toString('utf8'));
      expect(records).toHaveLength(ROWS + 1);
      const stored = await storedRows(sourceId, start, end);
      // Every record once, in order, across the cursor's batches (a whole number of them: the last
      // read, asked for ahead, finds nothing).
      expect(records.slice(1).map((record) => record[0])).toEqual(stored.map((row) => row.ts.toISOString()));
      const sample = [0, 1, 12_345, ROWS - 1];
      expect(sample.map((index) => records[index + 1])).toEqual(
        sample.map((index) => [
          stored[index].ts.toISOString(),
          ...EXPORT_FIELDS.map((field) => expectedCsvCell(stored[index][field.column])),
        ]),
      );
    });

    it(`Excel streams ${ROWS} rows and summarizes them`, async () => {
      const response = await download('excel', sourceId, range(start, end)).expect(200);
      const workbook = await loadWorkbook(response.body as Buffer);
      const data = workbook.getWorksheet('Data')!;
      expect(data.rowCount).toBe(ROWS + 1);
      expect(data.getRow(ROWS + 1).getCell(1).value).toEqual(new Date(start.getTime() + (ROWS - 1) * 10_000));
      let records: ExcelJS.CellValue = null;
      workbook.getWorksheet('Summary')!.eachRow((row) => {
        if (row.getCell(1).value === 'Records') records = row.getCell(2).value;
      });
      expect(records).toBe(ROWS);
    });

    /** Starts a download over a plain socket; `onFirstChunk` runs once the body has begun. */
    async function rawDownload(
      format: 'csv' | 'excel',
      onFirstChunk: (call: http.ClientRequest) => Promise<void> | void,
    ): Promise<{ complete: boolean; body: Buffer }> {
      const server = app.getHttpServer() as http.Server;
      if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const path = `/api/export/${sourceId}/${format}?${new URLSearchParams(range(start, end)).toString()}`;
      return new Promise((resolve, reject) => {
        const call = http.get(
          { port, host: '127.0.0.1', path, headers: { Cookie: owner.cookie } },
          (response) => {
            const chunks: Buffer[] = [];
            let first = true;
            response.on('data', (chunk: Buffer) => {
              chunks.push(chunk);
              if (!first) return;
              first = false;
              Promise.resolve(onFirstChunk(call)).catch(reject);
            });
            response.on('error', () => undefined); // "aborted": what the test is about
            response.on('close', () => resolve({ complete: response.complete, body: Buffer.concat(chunks) }));
          },
        );
        call.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ECONNRESET') reject(error);
        });
      });
    }

    async function connectionsAreBack(): Promise<void> {
      const pool = (
        app.get(DataSource).driver as unknown as { master: { totalCount: number; idleCount: number } }
      ).master;
      await waitFor(() => pool.totalCount === pool.idleCount, 'every connection back in the pool');
      // A connection dropped with its transaction open ends asynchronously on the server: give it
      // a few seconds, and fail if it stays.
      let open = -1;
      for (let attempt = 0; attempt < 50 && open !== 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const { rows } = await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        );
        open = rows[0].n;
      }
      expect(open).toBe(0);
      // And the app still exports.
      await download('csv', sourceId, range(start, new Date(start.getTime() + DAY_MS))).expect(200);
    }

    it.each(['csv', 'excel'] as const)(
      '%s: a client that goes away mid-download gives the connection back',
      async (format) => {
        const result = await rawDownload(format, (call) => {
          call.destroy();
        });
        expect(result.complete).toBe(false);
        await connectionsAreBack();
      },
    );

    it.each(['csv', 'excel'] as const)(
      '%s: when the database dies mid-stream the transfer breaks off, with no error body',
      async (format) => {
        // The first bytes are out while the cursor is still far from its end: cut its connection.
        // Excel's first bytes can leave before the cursor's statement reaches the server: wait for
        // it. An idle pooled connection still shows the last export it ran: leave those alone.
        const result = await rawDownload(format, () =>
          waitFor(async () => {
            const { rowCount } = await db.query(
              `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'
                 AND query LIKE '%export_rows%'`,
            );
            return rowCount === 1;
          }, 'the export cursor to be running'),
        );
        expect(result.complete).toBe(false);
        expect(result.body.length).toBeGreaterThan(0);
        expect(result.body.includes('"message"')).toBe(false);
        await connectionsAreBack();
      },
    );
  });

  describe('the 500,000 record limit, with a limit of 3', () => {
    let limited: INestApplication;
    let limitedApi: Http;
    let sourceId: string;
    const start = new Date('2026-05-15T00:00:00Z');

    beforeAll(async () => {
      ({ app: limited, http: limitedApi } = await startApi(env.config, clock, (builder) =>
        builder.overrideProvider(EXPORT_ROW_LIMIT).useValue(3),
      ));
      sourceId = (await createSource()).id;
      await insertSeries(sourceId, start, 4);
    });

    afterAll(async () => {
      await limited.close();
    });

    it.each(['csv', 'excel'] as const)(
      '%s: 4 records in range → the first 3 and X-Export-Truncated',
      async (format) => {
        const response = await limitedApi
          .get(`/api/export/${sourceId}/${format}`)
          .query(range(start, new Date(start.getTime() + DAY_MS)))
          .set('Cookie', owner.cookie)
          .buffer(true)
          .parse(binary)
          .expect(200);
        expect(response.headers['x-export-truncated']).toBe('true');
        const timestamps =
          format === 'csv'
            ? parseCsv(response.body.toString())
                .slice(1)
                .map((record) => record[0])
            : sheetRows((await loadWorkbook(response.body as Buffer)).getWorksheet('Data')!)
                .slice(1)
                .map((row) => (row[0] as Date).toISOString());
        expect(timestamps).toEqual(
          [0, 1, 2].map((index) => new Date(start.getTime() + index * 10_000).toISOString()),
        );
      },
    );

    it('exactly 3 records in range → all of them, not truncated', async () => {
      const response = await limitedApi
        .get(`/api/export/${sourceId}/csv`)
        .query(range(start, new Date(start.getTime() + 30_000)))
        .set('Cookie', owner.cookie)
        .expect(200);
      expect(response.headers['x-export-truncated']).toBeUndefined();
      expect(parseCsv(response.text)).toHaveLength(4);
    });
  });
});
