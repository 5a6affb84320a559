import { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import {
  createTestEnvironment,
  FakeClock,
  FakeOpenMeteo,
  Http,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { SHARE_PAGE_STYLE_HASH } from '../src/sharing/share-page/share-page.view';
import { postTelemetry, startApi } from './support/api-harness';
import {
  configureSharing,
  createSharedInstallation,
  EVERYTHING_SHARED,
  Reading,
} from './support/shared-installation';

const NOW = new Date('2026-06-10T12:00:00Z');
const PAGE_CSP =
  `default-src 'none'; style-src ${SHARE_PAGE_STYLE_HASH}; img-src data:; base-uri 'none'; ` +
  "form-action 'none'; frame-ancestors *";
const BADGE_CSP = "default-src 'none'; frame-ancestors *";
const HOSTILE_NAME = '<script>alert("roof")</script> & co';

/** The text of the element with `id`. */
const textOf = (page: string, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(page)?.[1];

let address = 0;
/** A client address of its own (through the trusted loopback proxy), so rate limits stay apart. */
const nextAddress = () => `198.51.100.${(address++ % 250) + 1}`;

describe('share page and badge', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let db: Client;
  let clock: FakeClock;
  let owner: { cookie: string; id: string };
  let stranger: { cookie: string };
  let shared: { id: string; secret: string; readings: Reading[] };
  const weather = new FakeOpenMeteo({
    firstDate: '2026-06-10',
    utcOffsetSeconds: 7200,
    timezone: 'Europe/Vienna',
  });

  beforeAll(async () => {
    await weather.start();
    env = await createTestEnvironment({ WEATHER_API_URL: weather.url });
    clock = new FakeClock(NOW);
    ({ app, http } = await startApi(env.config, clock));
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    owner = await signUp(http, env.mail);
    stranger = await signUp(http, env.mail);
    shared = await createSharedInstallation(http, db, owner.cookie, { name: HOSTILE_NAME, now: NOW });
  });

  afterAll(async () => {
    await db.end();
    await app.close();
    await env.teardown();
    await weather.stop();
  });

  const page = (id: string) => http.get(`/share/${id}`).set('X-Forwarded-For', nextAddress());
  const badge = (id: string) => http.get(`/share/${id}/badge.svg`).set('X-Forwarded-For', nextAddress());
  const last = () => shared.readings[shared.readings.length - 1];

  describe('the page', () => {
    it('is HTML under a strict policy, cached publicly for a minute, and embeddable', async () => {
      const response = await page(shared.id).expect(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['content-security-policy']).toBe(PAGE_CSP);
      expect(response.headers['cache-control']).toBe('public, max-age=60');
      expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(response.headers['x-frame-options']).toBeUndefined();
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.text).toMatch(/^<!doctype html>/);
      expect(response.text).not.toMatch(/<script|<link rel="stylesheet"|src="http/);
    });

    it('escapes the name the owner gave the source', async () => {
      const { text } = await page(shared.id).expect(200);
      expect(text).not.toContain('<script>');
      expect(textOf(text, 'name')).toBe('&lt;script&gt;alert(&quot;roof&quot;)&lt;/script&gt; &amp; co');
      expect(text).toContain(
        '<title>&lt;script&gt;alert(&quot;roof&quot;)&lt;/script&gt; &amp; co · solar</title>',
      );
    });

    it('shows the latest power and charge, today’s energy and curve, forecast, savings and weather', async () => {
      const { text } = await page(shared.id).expect(200);
      const latest = (
        await http
          .get(`/api/sharing/public/${shared.id}/metrics`)
          .set('X-Forwarded-For', nextAddress())
          .expect(200)
      ).body;
      expect(latest).toMatchObject({ solarPower: last().solarPower, stateOfCharge: last().stateOfCharge });
      expect(textOf(text, 'power')).toBe(`${(last().solarPower / 1000).toFixed(2).replace(/\.?0+$/, '')} kW`);
      expect(textOf(text, 'soc')).toBe(`${last().stateOfCharge} %`);
      expect(textOf(text, 'energy-today')).toBe(`${last().dailyEnergyProduced.toFixed(1)} kWh`);
      expect(text).toContain('<p class="status online" id="status">Online · last report 2 min ago</p>');
      // 04:00 to 11:58: eight hours, one line through them.
      expect(text.match(/<path class="line" d="M[^"]+"/g)).toHaveLength(1);
      expect(text.match(/<path class="line" d="M[^"]+"/)![0].split(' L')).toHaveLength(8);
      expect(text.match(/<rect class="bar"/g)).toHaveLength(7);
      expect(text).toContain('>24.1</text>');
      expect(textOf(text, 'forecast-record')).toBe('No day-ahead forecast scored in the last 30 days yet.');
      expect(textOf(text, 'savings')).toMatch(/^€\d+\.\d\d$/);
      expect(text).toContain('5.4 kW installed');
      expect(text).toMatch(/<h2 id="weather-title">Weather<\/h2>\n<div class="scroll"><table>/);
      expect(text.match(/<tr><td>/g)!.length).toBeGreaterThanOrEqual(7);
    });

    it('shows only the views the owner shares', async () => {
      const cases: Array<[Partial<typeof EVERYTHING_SHARED>, string[]]> = [
        [{ isEnabled: true }, []],
        [{ isEnabled: true, shareMonitor: true }, ['now-title', 'today-title']],
        [{ isEnabled: true, shareForecast: true }, ['forecast-title']],
        [{ isEnabled: true, shareReturns: true }, ['returns-title']],
        [{ isEnabled: true, shareWeather: true }, ['weather-title']],
      ];
      const titles = ['now-title', 'today-title', 'forecast-title', 'returns-title', 'weather-title'];
      const source = await createSharedInstallation(http, db, owner.cookie, { name: 'Flags', now: NOW });
      for (const [flags, shown] of cases) {
        await configureSharing(http, owner.cookie, source.id, flags);
        const { text } = await page(source.id).expect(200);
        expect([flags, titles.filter((title) => text.includes(`id="${title}"`))]).toEqual([flags, shown]);
        expect(textOf(text, 'name')).toBe('Flags');
      }
    });

    it('is the same for anyone: a visitor’s session changes nothing and is not renewed', async () => {
      const anonymous = await page(shared.id).expect(200);
      for (const cookie of [stranger.cookie, owner.cookie]) {
        const response = await page(shared.id).set('Cookie', cookie).expect(200);
        expect(response.text).toBe(anonymous.text);
        expect(response.headers['set-cookie']).toBeUndefined();
      }
    });

    it('answers one 404 page for a source not shared, not existing, or no id at all', async () => {
      const off = await createSharedInstallation(http, db, owner.cookie, {
        name: 'Private',
        now: NOW,
        flags: { ...EVERYTHING_SHARED, isEnabled: false },
      });
      const answers = [];
      for (const id of [off.id, '7d444840-9dc0-41d1-b245-5ffdce74fad2', 'not-an-id', '%3Cscript%3E']) {
        const response = await page(id).expect(404);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.headers['content-security-policy']).toBe(PAGE_CSP);
        expect(response.headers['cache-control']).toBe('no-store');
        answers.push(response.text);
      }
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).toContain('<h1>Not found</h1>');
      expect(answers[0]).not.toContain('Private');
    });

    it('reuses a rendering for 30 s, but stops at once when sharing stops', async () => {
      const source = await createSharedInstallation(http, db, owner.cookie, {
        name: 'Cached',
        now: clock.now(),
      });
      const first = await page(source.id).expect(200);
      await postTelemetry(http, source, {
        timestamp: new Date(clock.now().getTime() - 30_000).toISOString(),
        solarPower: 1234,
      }).expect(200);
      clock.advance(29_000);
      expect((await page(source.id).expect(200)).text).toBe(first.text);
      clock.advance(1_000);
      expect(textOf((await page(source.id).expect(200)).text, 'power')).toBe('1.23 kW');

      await configureSharing(http, owner.cookie, source.id, { ...EVERYTHING_SHARED, isEnabled: false });
      await page(source.id).expect(404);
      await configureSharing(http, owner.cookie, source.id, { isEnabled: true });
      const narrowed = (await page(source.id).expect(200)).text;
      expect(narrowed).not.toContain('id="power"');
    });
  });

  describe('the badge', () => {
    it('shows today’s energy as SVG, cached publicly for a minute', async () => {
      const response = await badge(shared.id).expect(200);
      expect(response.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(response.headers['content-security-policy']).toBe(BADGE_CSP);
      expect(response.headers['cache-control']).toBe('public, max-age=60');
      expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
      const svg = response.body.toString('utf8');
      const value = `${last().dailyEnergyProduced.toFixed(1)} kWh today`;
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="20"/);
      expect(svg).toContain(`aria-label="solar: ${value}"`);
      expect(svg).toContain('fill="#4c1"');
      expect(svg).not.toContain('<script');
    });

    it('says "offline" when the source has been silent for more than 15 minutes, or never spoke', async () => {
      const quiet = await createSharedInstallation(http, db, owner.cookie, {
        name: 'Quiet',
        now: clock.now(),
      });
      // The last reading is 2 minutes old: 13 more minutes is still online (and past the cache).
      clock.advance(13 * 60_000);
      expect((await badge(quiet.id).expect(200)).body.toString()).toContain('kWh today');
      clock.advance(60_000 + 1);
      const offline = (await badge(quiet.id).expect(200)).body.toString();
      expect(offline).toContain('aria-label="solar: offline"');
      expect(offline).toContain('fill="#9f9f9f"');

      const created = await http
        .post('/api/sunsources')
        .set('Cookie', owner.cookie)
        .send({ name: 'Silent', connectionType: 'Webhook' })
        .expect(201);
      await configureSharing(http, owner.cookie, created.body.id, { isEnabled: true, shareMonitor: true });
      expect((await badge(created.body.id).expect(200)).body.toString()).toContain(
        'aria-label="solar: offline"',
      );
      expect((await page(created.body.id).expect(200)).text).toContain('No report yet');
    });

    it('is one "not shared" 404 when monitoring is not shared, or no such source', async () => {
      const noMonitor = await createSharedInstallation(http, db, owner.cookie, {
        name: 'No monitor',
        now: clock.now(),
        flags: { ...EVERYTHING_SHARED, shareMonitor: false },
      });
      const answers = [];
      for (const id of [noMonitor.id, '7d444840-9dc0-41d1-b245-5ffdce74fad2', 'nope']) {
        const response = await badge(id).expect(404);
        expect(response.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
        answers.push(response.body.toString());
      }
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).toContain('aria-label="solar: not shared"');
    });
  });
});
