import { INestApplication } from '@nestjs/common';
import net from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiWithUser,
  createWebhookSource,
  FakeClock,
  listenOnLoopback,
  signUp,
  startApiWithUser,
  waitFor,
} from '@solar/testing';
import { createApiApp } from '../src/create-api-app';
import { createSchedulerApp } from '../../scheduler/src/create-scheduler-app';

jest.setTimeout(60_000);

const NOW = new Date('2026-06-10T12:00:00Z');
const MAX_BYTES = 200_000;
const INLINE_MAX_BYTES = 80_000;

/** Rows on 1 May, a header with an alias, a column no field reads, and every kind of row. */
const MIXED = [
  'timestamp,solarPower,soc,batteryVoltage,notes',
  '2026-05-01T10:00:00Z,1200,55,52.1,first',
  '2026-05-01T10:00:05Z,1300,56,52.2,five seconds later',
  '2026-05-01T10:05:00Z,1250,57,52.3,',
  'not-a-date,100,50,50,',
  ',100,50,50,no timestamp',
  '2026-05-01T10:10:00Z,abc,,,',
  '2026-05-01T10:15:00Z,1',
  '2030-01-01T00:00:00Z,100,50,50,',
  '',
  '2026-05-01T10:20:00Z,99999999,58,52.4,solar out of range',
  // Within the last day: the throttle set's side of the windows.
  '2026-06-10T11:00:00Z,900,80,53,recent',
].join('\n');

const MIXED_REJECTIONS = [
  { line: 5, reason: 'Invalid timestamp' },
  { line: 6, reason: 'Missing timestamp' },
  { line: 7, reason: 'No valid telemetry fields' },
  { line: 8, reason: 'Expected 5 columns, found 2' },
  { line: 9, reason: 'Timestamp is more than 5 minutes in the future' },
];

describe('POST /api/sunsourcedata/{id}/import', () => {
  let api: ApiWithUser;
  let scheduler: INestApplication;
  const clock = new FakeClock(NOW);

  beforeAll(async () => {
    api = await startApiWithUser(createApiApp, {
      clock,
      env: { IMPORT_MAX_BYTES: String(MAX_BYTES), IMPORT_INLINE_MAX_BYTES: String(INLINE_MAX_BYTES) },
    });
    scheduler = await createSchedulerApp(api.env.configWith({}), { clock });
  });

  afterAll(async () => {
    await scheduler?.close();
    await api?.close();
  });

  const newSource = async () => (await createWebhookSource(api.http, api.cookie, { name: 'History' })).id;
  const importCsv = (sourceId: string, csv: string, query = '') =>
    api.http
      .post(`/api/sunsourcedata/${sourceId}/import${query}`)
      .set('Cookie', api.cookie)
      .set('Content-Type', 'text/csv')
      .send(csv);
  const storedRows = async (sourceId: string) =>
    (
      await api.db.query<{ ts: Date; solar_power: number | null; state_of_charge: number | null }>(
        'SELECT ts, solar_power, state_of_charge FROM telemetry WHERE sun_source_id = $1 ORDER BY ts',
        [sourceId],
      )
    ).rows.map((row) => ({ ts: row.ts.toISOString(), solar: row.solar_power, soc: row.state_of_charge }));
  const spooled = () => {
    try {
      return readdirSync(join(api.env.config.dataDir, 'imports'));
    } catch {
      return [];
    }
  };

  it('answers a small file at once, row by row as telemetry, and stores nothing the second time', async () => {
    const id = await newSource();
    const first = await importCsv(id, MIXED);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      rowsRead: 10,
      stored: 4,
      duplicate: 0,
      throttled: 1,
      rejected: 5,
      rejections: MIXED_REJECTIONS,
    });
    expect(await storedRows(id)).toEqual([
      { ts: '2026-05-01T10:00:00.000Z', solar: 1200, soc: 55 },
      { ts: '2026-05-01T10:05:00.000Z', solar: 1250, soc: 57 },
      { ts: '2026-05-01T10:20:00.000Z', solar: null, soc: 58 },
      { ts: '2026-06-10T11:00:00.000Z', solar: 900, soc: 80 },
    ]);
    const { rows } = await api.db.query(
      'SELECT raw FROM telemetry WHERE sun_source_id = $1 ORDER BY ts LIMIT 1',
      [id],
    );
    expect(rows[0].raw).toEqual({
      timestamp: '2026-05-01T10:00:00Z',
      solarPower: '1200',
      soc: '55',
      batteryVoltage: '52.1',
      notes: 'first',
    });

    const second = await importCsv(id, MIXED);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      rowsRead: 10,
      stored: 0,
      duplicate: 4,
      throttled: 1,
      rejected: 5,
      rejections: MIXED_REJECTIONS,
    });
    expect((await storedRows(id)).length).toBe(4);
    expect(spooled()).toEqual([]);
  });

  it('takes UTC offsets from the values, and local times in the timeZone given', async () => {
    const csv = [
      'time,solar_power',
      '2026-01-15 12:00:00,100',
      '2026-05-20T12:00,200',
      '2026-03-01T12:00:00+05:00,300',
      '1767225600,400',
    ].join('\n');
    const [utc, berlin] = [await newSource(), await newSource()];
    expect((await importCsv(utc, csv)).body.stored).toBe(4);
    expect((await importCsv(berlin, csv, '?timeZone=Europe/Berlin')).body.stored).toBe(4);
    expect((await storedRows(utc)).map((row) => row.ts)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-15T12:00:00.000Z',
      '2026-03-01T07:00:00.000Z',
      '2026-05-20T12:00:00.000Z',
    ]);
    expect((await storedRows(berlin)).map((row) => row.ts)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-15T11:00:00.000Z',
      '2026-03-01T07:00:00.000Z',
      '2026-05-20T10:00:00.000Z',
    ]);

    const invalid = await importCsv(berlin, csv, '?timeZone=Mars/Olympus');
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      errors: { timeZone: ['timeZone must be an IANA time zone such as Europe/Berlin'] },
    });
  });

  it('takes the file as the multipart field "file"', async () => {
    const id = await newSource();
    const response = await api.http
      .post(`/api/sunsourcedata/${id}/import`)
      .set('Cookie', api.cookie)
      .field('note', 'ignored')
      .attach(
        'file',
        Buffer.from('ts,soc\n2026-04-01T00:00:00Z,40\n2026-04-01T00:01:00Z,41\n'),
        'export.csv',
      );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      rowsRead: 2,
      stored: 2,
      duplicate: 0,
      throttled: 0,
      rejected: 0,
      rejections: [],
    });
    const noFile = await api.http
      .post(`/api/sunsourcedata/${id}/import`)
      .set('Cookie', api.cookie)
      .field('note', 'no file');
    expect(noFile.status).toBe(400);
    expect(noFile.body).toEqual({ message: 'The form needs the CSV file as field "file"' });
  });

  it('refuses headers no row could be stored under, other media types, and overlong rows', async () => {
    const id = await newSource();
    const cases: Array<[string, string]> = [
      ['solarPower,soc\n1,2', 'The CSV header needs a timestamp column (timestamp, ts, time, dateTime, ...)'],
      ['timestamp,colour\n2026-04-01T00:00:00Z,red', 'The CSV header names no telemetry field'],
      ['timestamp,soc,SOC\n2026-04-01T00:00:00Z,1,2', 'The CSV header names column "SOC" twice'],
      ['', 'The CSV file is empty: a header row is needed'],
      [
        `timestamp,mode\n2026-04-01T00:00:00Z,${'x'.repeat(70_000)}\n`,
        'Line 2 is longer than 65536 bytes; the import stopped there',
      ],
    ];
    for (const [csv, message] of cases) {
      const response = await importCsv(id, csv);
      expect({ status: response.status, body: response.body }).toEqual({ status: 400, body: { message } });
    }
    // A file large enough for a job is checked before it is queued.
    const large = await importCsv(id, `solarPower,soc\n${'1,2\n'.repeat(30_000)}`);
    expect(large.status).toBe(400);
    expect(large.body).toEqual({ message: cases[0][1] });
    expect(spooled()).toEqual([]);
    const json = await api.http
      .post(`/api/sunsourcedata/${id}/import`)
      .set('Cookie', api.cookie)
      .send({ timestamp: '2026-04-01T00:00:00Z' });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({ message: 'Content-Type must be text/csv or multipart/form-data' });
    expect(await storedRows(id)).toEqual([]);
  });

  it('answers 413 over IMPORT_MAX_BYTES, as a body or as a form field, and keeps nothing', async () => {
    const id = await newSource();
    const rows = Array.from(
      { length: 10_000 },
      (_, index) => `${new Date(Date.UTC(2026, 2, 1) + index * 60_000).toISOString()},50`,
    );
    const csv = `timestamp,soc\n${rows.join('\n')}\n`;
    expect(csv.length).toBeGreaterThan(MAX_BYTES);
    const body = await importCsv(id, csv);
    expect(body.status).toBe(413);
    expect(body.body).toEqual({ message: `The file exceeds the import limit of ${MAX_BYTES} bytes` });
    const form = await api.http
      .post(`/api/sunsourcedata/${id}/import`)
      .set('Cookie', api.cookie)
      .attach('file', Buffer.from(csv), 'big.csv');
    expect(form.status).toBe(413);
    expect(form.body).toEqual({ message: `The file exceeds the import limit of ${MAX_BYTES} bytes` });
    expect(await storedRows(id)).toEqual([]);
    expect(spooled()).toEqual([]);
  });

  it('answers 400 to a form that breaks off or goes wrong, before or after its file, and stores nothing', async () => {
    const id = await newSource();
    const part = (name: string, content: string) =>
      `--form\r\nContent-Disposition: form-data; name="${name}"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n${content}`;
    const csv = 'timestamp,soc\n2026-04-01T00:00:00Z,40\n';
    const cases: Array<[string, string, string]> = [
      ['the file cut short', part('file', csv.slice(0, 20)), 'Unexpected end of form'],
      ['the file without the closing boundary', part('file', csv), 'Unexpected end of form'],
      [
        'a closing boundary without its final --',
        `${part('file', csv)}\r\n--form\r\n`,
        'Unexpected end of form',
      ],
      ['a file part with its header only', part('file', ''), 'Unexpected end of form'],
      ['another part cut short, no file', part('note', 'zzz'), 'Unexpected end of form'],
      [
        'the file, then a part cut short',
        `${part('file', csv)}\r\n${part('note', 'zzz')}`,
        'Unexpected end of form',
      ],
      [
        'the file, then a malformed part header',
        `${part('file', csv)}\r\n--form\r\nno-colon-header\r\n\r\nx\r\n--form--\r\n`,
        'Malformed part header',
      ],
    ];
    for (const [what, body, message] of cases) {
      const response = await api.http
        .post(`/api/sunsourcedata/${id}/import`)
        .set('Cookie', api.cookie)
        .set('Content-Type', 'multipart/form-data; boundary=form')
        .send(body);
      expect({ what, status: response.status, body: response.body }).toEqual({
        what,
        status: 400,
        body: { message },
      });
    }
    expect(await storedRows(id)).toEqual([]);
    expect(spooled()).toEqual([]);
    const whole = await api.http
      .post(`/api/sunsourcedata/${id}/import`)
      .set('Cookie', api.cookie)
      .set('Content-Type', 'multipart/form-data; boundary=form')
      .send(`${part('file', csv)}\r\n--form--\r\n`);
    expect(whole.status).toBe(200);
    expect(await storedRows(id)).toHaveLength(1);
  });

  it('drops the spooled part of an upload whose client goes away, as a body or as a form', async () => {
    const port = await listenOnLoopback(api.app);
    const id = await newSource();
    const rows = 'timestamp,soc\n2026-04-01T00:00:00Z,40\n'.padEnd(20_000, '#');
    const uploads = [
      { type: 'text/csv', start: rows },
      {
        type: 'multipart/form-data; boundary=gone',
        start: `--gone\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n${rows}`,
      },
    ];
    for (const upload of uploads) {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /api/sunsourcedata/${id}/import HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${api.cookie}\r\n` +
          `Content-Type: ${upload.type}\r\nContent-Length: ${MAX_BYTES}\r\n\r\n${upload.start}`,
      );
      await waitFor(() => spooled().length === 1, `${upload.type}: the upload spooled`);
      socket.destroy();
      await waitFor(() => spooled().length === 0, `${upload.type}: its spool file removed`);
    }
    expect(await storedRows(id)).toEqual([]);
  });

  it("is 404 for another user's source and job", async () => {
    const id = await newSource();
    const other = await signUp(api.http, api.env.mail);
    const response = await api.http
      .post(`/api/sunsourcedata/${id}/import`)
      .set('Cookie', other.cookie)
      .set('Content-Type', 'text/csv')
      .send('timestamp,soc\n2026-04-01T00:00:00Z,40\n');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Sun source not found' });
    expect(await storedRows(id)).toEqual([]);
  });

  it('puts imported history into the hourly rollup and the daily summaries', async () => {
    const id = await newSource();
    // 40 days back, every 5 minutes over two hours: 24 rows, 12 per hour.
    const start = Date.UTC(2026, 4, 1, 10);
    const lines = Array.from({ length: 24 }, (_, index) => {
      const ts = new Date(start + index * 300_000).toISOString();
      return `${ts},${(index + 1) * 100},${index + 1}`;
    });
    const report = await importCsv(id, `timestamp,solarPower,dailyEnergyProduced\n${lines.join('\n')}`);
    expect(report.body.stored).toBe(24);
    const range = '?startTime=2026-05-01T00:00:00Z&endTime=2026-05-02T00:00:00Z';
    const hourly = await api.http
      .get(`/api/sunsourcemetrics/${id}/aggregated${range}`)
      .set('Cookie', api.cookie);
    expect(hourly.status).toBe(200);
    expect(
      hourly.body.map((hour: { timestamp: string; sampleCount: number; maxSolarPower: number }) => [
        hour.timestamp,
        hour.sampleCount,
        hour.maxSolarPower,
      ]),
    ).toEqual([
      ['2026-05-01T10:00:00.000Z', 12, 1200],
      ['2026-05-01T11:00:00.000Z', 12, 2400],
    ]);
    const daily = await api.http
      .get(`/api/sunsourcemetrics/${id}/daily-summary${range}`)
      .set('Cookie', api.cookie);
    expect(daily.status).toBe(200);
    expect(daily.body).toHaveLength(1);
    expect(daily.body[0]).toMatchObject({
      date: '2026-05-01',
      sampleCount: 24,
      solarPowerMax: 2400,
      energyProduced: 24,
    });
    const { rows } = await api.db.query(
      'SELECT sum(sample_count)::int AS n FROM telemetry_hourly WHERE sun_source_id = $1',
      [id],
    );
    expect(rows[0].n).toBe(24);
  });

  it('runs a large file as a job whose progress ends in the report', async () => {
    const id = await newSource();
    // 3,500 rows a minute apart, every hundredth 3 s after the one before it (throttled).
    const start = Date.UTC(2026, 3, 1);
    const lines = Array.from({ length: 3_500 }, (_, index) => {
      const ts = start + index * 60_000 - (index % 100 === 99 ? 57_000 : 0);
      return `${new Date(ts).toISOString()},${index % 101}`;
    });
    const csv = `timestamp,soc\n${lines.join('\n')}\nbroken,1\n`;
    expect(csv.length).toBeGreaterThan(INLINE_MAX_BYTES);
    const accepted = await importCsv(id, csv);
    expect(accepted.status).toBe(202);
    expect(Object.keys(accepted.body)).toEqual(['jobId']);
    const jobUrl = `/api/sunsourcedata/${id}/import/${accepted.body.jobId}`;

    let job: { body: { state: string } } | undefined;
    await waitFor(async () => {
      job = await api.http.get(jobUrl).set('Cookie', api.cookie).expect(200);
      return job.body.state === 'completed' || job.body.state === 'failed';
    }, 'the import job to end');
    expect(job?.body).toEqual({
      state: 'completed',
      error: null,
      rowsRead: 3_501,
      stored: 3_465,
      duplicate: 0,
      throttled: 35,
      rejected: 1,
      rejections: [{ line: 3_502, reason: 'Invalid timestamp' }],
    });
    expect((await storedRows(id)).length).toBe(3_465);
    expect(spooled()).toEqual([]);

    const other = await signUp(api.http, api.env.mail);
    const foreign = await api.http.get(jobUrl).set('Cookie', other.cookie);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Import job not found' });
    const wrongSource = await api.http
      .get(`/api/sunsourcedata/${await newSource()}/import/${accepted.body.jobId}`)
      .set('Cookie', api.cookie);
    expect(wrongSource.status).toBe(404);
  });
});
