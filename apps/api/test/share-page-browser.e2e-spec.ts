import { INestApplication } from '@nestjs/common';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { BrowserContext, chromium, ConsoleMessage, Page } from 'playwright-core';
import {
  createTestEnvironment,
  FakeClock,
  FakeOpenMeteo,
  Http,
  listenOnLoopback,
  signUp,
  TestEnvironment,
} from '@solar/testing';
import { startApi } from './support/api-harness';
import { createSharedInstallation, Reading } from './support/shared-installation';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). Missing, this test fails. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ROOT = resolve(__dirname, '../../..');
/** Screenshots of every run (gitignored). */
const ARTIFACTS = join(ROOT, 'test-artifacts');
/** Set to refresh the README's screenshot: `npm run screenshot:share`. */
const REFRESH_DOCS_SCREENSHOT = process.env.UPDATE_SHARE_PAGE_SCREENSHOT === '1';

const NOW = new Date('2026-06-10T12:00:00Z');
const NAME = 'Sunny Roof';
const HOSTILE_NAME = 'Sunny Roof <script>alert(1)</script><img src=x onerror=alert(2)>';

/**
 * In-page code, as text: the project compiles without the DOM's types. The first records the
 * page's Content-Security-Policy violations in `window.cspViolations`.
 */
const RECORD_CSP_VIOLATIONS = `
  window.cspViolations = [];
  document.addEventListener('securitypolicyviolation', (event) =>
    window.cspViolations.push(event.violatedDirective + ' ' + event.blockedURI));`;
const inPage = {
  cspViolations: 'window.cspViolations',
  bodyBackground: 'getComputedStyle(document.body).backgroundColor',
  lineFill: "getComputedStyle(document.querySelector('path.line')).fill",
  scriptsAndImages: '[document.scripts.length, document.images.length]',
  pageWidth: 'document.documentElement.scrollWidth',
  injectStyle: `document.head.insertAdjacentHTML('beforeend', '<style>body{background:rgb(255, 0, 0)}</style>')`,
  badgeWidth: "document.getElementById('badge').naturalWidth",
};

interface Watched {
  page: Page;
  consoleErrors: string[];
  requests: string[];
}

describe('share page in a real browser (headless Chromium)', () => {
  let env: TestEnvironment;
  let app: INestApplication;
  let http: Http;
  let db: Client;
  let context: BrowserContext;
  let userDataDir: string;
  let origin: string;
  let owner: { cookie: string };
  let installation: { id: string; readings: Reading[] };
  const weather = new FakeOpenMeteo({
    firstDate: '2026-06-10',
    utcOffsetSeconds: 7200,
    timezone: 'Europe/Vienna',
  });

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium`);
    await weather.start();
    env = await createTestEnvironment({ WEATHER_API_URL: weather.url });
    ({ app, http } = await startApi(env.config, new FakeClock(NOW)));
    origin = `http://127.0.0.1:${await listenOnLoopback(app)}`;
    db = new Client({ connectionString: env.config.databaseUrl });
    await db.connect();
    owner = await signUp(http, env.mail);
    installation = await createSharedInstallation(http, db, owner.cookie, { name: NAME, now: NOW });
    userDataDir = mkdtempSync(join(tmpdir(), 'share-page-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 800, height: 900 },
      colorScheme: 'light',
    });
    // Runs before the page's own code, outside its Content-Security-Policy (as DevTools does).
    await context.addInitScript({ content: RECORD_CSP_VIOLATIONS });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await context?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    await db?.end();
    await app?.close();
    await env?.teardown();
    await weather.stop();
  });

  /** A new tab that records console errors and every request it makes. */
  async function watchedPage(): Promise<Watched> {
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const watched: Watched = { page, consoleErrors: [], requests: [] };
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') watched.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => watched.consoleErrors.push(error.message));
    page.on('request', (request) => watched.requests.push(request.url()));
    return watched;
  }

  const shareUrl = () => `${origin}/share/${installation.id}`;
  const last = () => installation.readings[installation.readings.length - 1];

  it('renders what is shared, with its charts, loading nothing else and breaking no policy', async () => {
    const { page, consoleErrors, requests } = await watchedPage();
    const response = await page.goto(shareUrl());
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);

    expect(await page.title()).toBe(`${NAME} · solar`);
    expect(await page.textContent('h1')).toBe(NAME);
    expect(await page.textContent('#power')).toBe(`${Number((last().solarPower / 1000).toFixed(2))} kW`);
    expect(await page.textContent('#soc')).toBe(`${last().stateOfCharge} %`);
    expect(await page.textContent('#energy-today')).toBe(`${last().dailyEnergyProduced.toFixed(1)} kWh`);
    expect(await page.textContent('#status')).toBe('Online · last report 2 min ago');
    expect(await page.textContent('#savings')).toMatch(/^€\d+\.\d\d$/);

    // Both charts are drawn, with a visible size: the curve of today and seven forecast bars.
    expect(await page.locator('svg.chart').count()).toBe(2);
    const curve = await page.locator('path.line').boundingBox();
    // 04:00 to 11:58 of a 24-hour axis: about a third of the plot's width.
    expect(curve?.width).toBeGreaterThan(150);
    expect(await page.locator('rect.bar').count()).toBe(7);
    expect(await page.locator('table tbody tr').count()).toBeGreaterThanOrEqual(7);

    // The hashed style sheet applied: the page's colours, not the browser's defaults.
    expect(await page.evaluate(inPage.bodyBackground)).toBe('rgb(244, 245, 247)');
    expect(await page.evaluate(inPage.lineFill)).toBe('none');

    expect(consoleErrors).toEqual([]);
    expect(await page.evaluate(inPage.cspViolations)).toEqual([]);
    expect(requests).toEqual([shareUrl()]);

    const screenshot = join(ARTIFACTS, 'share-page.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    if (REFRESH_DOCS_SCREENSHOT) copyFileSync(screenshot, join(ROOT, 'docs', 'share-page.png'));
    await page.close();
  });

  it('shows a hostile name as text: no script runs, no element is added', async () => {
    await http
      .put(`/api/sunsources/${installation.id}`)
      .set('Cookie', owner.cookie)
      .send({ name: HOSTILE_NAME })
      .expect(200);
    const { page, consoleErrors, requests } = await watchedPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    // Another address than before: the browser keeps the earlier page for a minute.
    const url = `${shareUrl()}?renamed`;
    await page.goto(url);
    expect(await page.title()).toBe(`${HOSTILE_NAME} · solar`);
    expect(await page.textContent('h1')).toBe(HOSTILE_NAME);
    expect(await page.evaluate(inPage.scriptsAndImages)).toEqual([0, 0]);
    expect(dialogs).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
    await http
      .put(`/api/sunsources/${installation.id}`)
      .set('Cookie', owner.cookie)
      .send({ name: NAME })
      .expect(200);
  });

  it('fits a phone’s width', async () => {
    const { page, consoleErrors } = await watchedPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(shareUrl());
    expect(await page.evaluate(inPage.pageWidth)).toBeLessThanOrEqual(390);
    const tiles = await page.locator('.tiles dd').first().boundingBox();
    expect(tiles?.width).toBeGreaterThan(100);
    expect(consoleErrors).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'share-page-phone.png'), fullPage: true });
    await page.close();
  });

  it('enforces its policy: a style injected into the page is refused and reported', async () => {
    const { page, consoleErrors } = await watchedPage();
    await page.goto(shareUrl());
    await page.evaluate(inPage.injectStyle);
    await page.waitForFunction('window.cspViolations.length > 0');
    expect(await page.evaluate(inPage.cspViolations)).toEqual(['style-src-elem inline']);
    expect(await page.evaluate(inPage.bodyBackground)).toBe('rgb(244, 245, 247)');
    expect(consoleErrors.join('\n')).toMatch(/Content Security Policy/);
    await page.close();
  });

  it('can be embedded by another site: the badge as an image, the page in a frame', async () => {
    // Another site: a page of its own origin, served on loopback.
    const site = createServer((_request, response) => {
      response.setHeader('Content-Type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><img id="badge" src="${shareUrl()}/badge.svg"><iframe id="frame" src="${shareUrl()}"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.2', resolve));
    try {
      const { page, consoleErrors } = await watchedPage();
      await page.goto(`http://127.0.0.2:${(site.address() as AddressInfo).port}/`);
      expect(await page.evaluate(inPage.badgeWidth)).toBeGreaterThan(100);
      const frame = page.frameLocator('#frame');
      expect(await frame.locator('#energy-today').textContent()).toBe(
        `${last().dailyEnergyProduced.toFixed(1)} kWh`,
      );
      expect(consoleErrors).toEqual([]);
      await page.close();
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
  });

  it('shows the badge on its own', async () => {
    const { page, consoleErrors } = await watchedPage();
    const response = await page.goto(`${shareUrl()}/badge.svg`);
    expect(response?.headers()['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(await page.locator('svg text').last().textContent()).toBe(
      `${last().dailyEnergyProduced.toFixed(1)} kWh today`,
    );
    expect(consoleErrors).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'share-badge.png') });
    await page.close();
  });
});
