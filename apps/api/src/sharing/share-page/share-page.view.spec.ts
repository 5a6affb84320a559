import { createHash } from 'node:crypto';
import { SunSourceMetrics } from '@solar/telemetry';
import { renderNotFoundPage, renderSharePage, SHARE_PAGE_STYLE_HASH, SharePageView } from './share-page.view';

const NOW = new Date('2026-06-10T12:00:00Z');

const latest = (fields: Partial<SunSourceMetrics>): SunSourceMetrics =>
  ({ sunSourceId: 's', timestamp: '2026-06-10T11:58:00.000Z', ...fields }) as SunSourceMetrics;

const view = (overrides: Partial<SharePageView> = {}): SharePageView => ({
  name: 'Roof',
  description: null,
  installedCapacityWatts: null,
  generatedAt: NOW,
  ...overrides,
});

const hour = (timestamp: string, averageSolarPower: number | null) => ({
  timestamp,
  averageSolarPower,
  averageBatteryVoltage: null,
  averageStateOfCharge: null,
  averageLoadPercentage: null,
  averageLoadPower: null,
  maxSolarPower: null,
  maxLoadPower: null,
  minStateOfCharge: null,
  sampleCount: 1,
});

const monitored = (online = true) =>
  view({
    monitor: {
      shown: true,
      data: {
        latest: latest({ solarPower: 1250, stateOfCharge: 81.6, loadPower: 430 }),
        online,
        today: {
          start: '2026-06-10T00:00:00.000Z',
          end: NOW.toISOString(),
          hours: [hour('2026-06-10T10:00:00.000Z', 900), hour('2026-06-10T11:00:00.000Z', 1300)],
          energyProducedKwh: 12.44,
        },
      },
    },
  });

/** The text of the element with `id`. */
const textOf = (page: string, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(page)?.[1];

describe('renderSharePage', () => {
  it('escapes what the owner wrote: name and description', () => {
    const page = renderSharePage(
      view({ name: '<script>alert(1)</script>', description: '"><img src=x onerror=alert(2)>' }),
    );
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain('<h1 id="name">&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(page).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt; · solar</title>');
    expect(page).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
  });

  it('is a phone-ready document with one style sheet, whose hash the policy names, and no script', () => {
    const page = renderSharePage(monitored());
    expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]);
    expect(styles).toHaveLength(1);
    expect(`'sha256-${createHash('sha256').update(styles[0]).digest('base64')}'`).toBe(SHARE_PAGE_STYLE_HASH);
    expect(page).not.toMatch(/<script|style="|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  it('shows power, battery, energy and the status of a monitored source, with today’s curve', () => {
    const page = renderSharePage(monitored());
    expect(textOf(page, 'power')).toBe('1.25 kW');
    expect(textOf(page, 'soc')).toBe('82 %');
    expect(textOf(page, 'energy-today')).toBe('12.4 kWh');
    expect(textOf(page, 'load')).toBe('430 W');
    expect(page).toContain('<p class="status online" id="status">Online · last report 2 min ago</p>');
    expect(page).toContain('aria-label="Solar power today, hourly averages (UTC)"');
    expect(page.match(/<path class="line"/g)).toHaveLength(1);
  });

  it('says when the source is offline or has reported nothing', () => {
    expect(renderSharePage(monitored(false))).toContain(
      '<p class="status" id="status">Offline · last report',
    );
    const silent = renderSharePage(
      view({
        monitor: {
          shown: true,
          data: {
            latest: null,
            online: false,
            today: {
              start: '2026-06-10T00:00:00.000Z',
              end: NOW.toISOString(),
              hours: [],
              energyProducedKwh: null,
            },
          },
        },
      }),
    );
    expect(textOf(silent, 'power')).toBe('–');
    expect(silent).toContain('No report yet');
    expect(silent).toContain('No data today yet.');
    expect(silent).not.toContain('<svg class="chart"');
  });

  it('shows only the sections the owner shares', () => {
    const page = renderSharePage(view());
    for (const title of ['now-title', 'today-title', 'forecast-title', 'returns-title', 'weather-title'])
      expect(page).not.toContain(title);
  });

  it('draws the forecast as bars and the savings in the source’s currency', () => {
    const page = renderSharePage(
      view({
        forecast: {
          shown: true,
          data: {
            createdAt: '2026-06-10T06:00:00.000Z',
            days: [
              { date: '2026-06-10', solarProductionKwh: 14.2, loadConsumptionKwh: 0, batteryChargeKwh: 0 },
              { date: '2026-06-11', solarProductionKwh: 9.8, loadConsumptionKwh: 0, batteryChargeKwh: 0 },
            ],
          },
        },
        returns: {
          shown: true,
          data: {
            totalEnergyProducedKwh: 1234.5,
            totalSavings: 456.7,
            currency: 'EUR',
            firstDataDate: '2025-06-01T00:00:00.000Z',
            lastDataDate: '2026-06-09T00:00:00.000Z',
            dailyBreakdown: [],
            systemCost: 8000,
            roiPercentage: 5.7,
            paybackPeriodYears: 17.5,
            monthlyAvgSavings: 38.1,
            hasInvestmentData: true,
          },
        },
      }),
    );
    expect(page.match(/<rect class="bar"/g)).toHaveLength(2);
    expect(page).toContain('>14.2</text>');
    expect(page).toContain('>Wed</text>');
    expect(page).toContain('kWh per day, Wed 10 Jun to Thu 11 Jun · forecast of Wed 10 Jun, 06:00 UTC');
    expect(textOf(page, 'savings')).toBe('€456.70');
    expect(page).toContain('17.5 years');
    expect(page).toContain('Since Sun 1 Jun');
  });

  it('says why a shared section has nothing to show', () => {
    const page = renderSharePage(
      view({
        weather: { shown: false, reason: 'Not available right now.' },
        forecast: { shown: true, data: { createdAt: NOW.toISOString(), days: [] } },
      }),
    );
    expect(page).toContain(
      '<h2 id="weather-title">Weather</h2>\n<p class="muted">Not available right now.</p>',
    );
    expect(page).toContain('No forecast for the coming days yet.');
  });

  it('tells how the day-ahead forecasts of the last days did, in words', () => {
    const record = (forecastRecord: SharePageView['forecastRecord']) =>
      textOf(
        renderSharePage(view({ forecast: { shown: false, reason: 'No forecast yet.' }, forecastRecord })),
        'forecast-record',
      );
    expect(
      record({ days: 30, daysScored: 12, solar: { maeW: 212.4, nmae: 0.04248 }, vsSmartPersistence: 0.3149 }),
    ).toBe(
      'Over the last 30 days (12 days scored), the day-ahead forecast was off by 4.2 % of the installed power ' +
        'on average in daylight; its error (RMS) was 31 % smaller than that of repeating yesterday’s cloudiness.',
    );
    // Without a capacity the error is in watts; a forecast worse than persistence says so.
    expect(
      record({ days: 30, daysScored: 1, solar: { maeW: 1234, nmae: null }, vsSmartPersistence: -0.126 }),
    ).toBe(
      'Over the last 30 days (1 day scored), the day-ahead forecast was off by 1.23 kW on average in daylight; ' +
        'its error (RMS) was 13 % larger than that of repeating yesterday’s cloudiness.',
    );
    expect(
      record({ days: 7, daysScored: 7, solar: { maeW: 50, nmae: 0.01 }, vsSmartPersistence: -0.004 }),
    ).toBe(
      'Over the last 7 days (7 days scored), the day-ahead forecast was off by 1.0 % of the installed power ' +
        'on average in daylight; its error (RMS) was about that of repeating yesterday’s cloudiness.',
    );
    // Smart persistence was perfect: nothing to compare with.
    expect(
      record({ days: 30, daysScored: 2, solar: { maeW: 25, nmae: null }, vsSmartPersistence: null }),
    ).toBe(
      'Over the last 30 days (2 days scored), the day-ahead forecast was off by 25 W on average in daylight.',
    );
    expect(record({ days: 30, daysScored: 0, solar: null, vsSmartPersistence: null })).toBe(
      'No day-ahead forecast scored in the last 30 days yet.',
    );
    expect(record(null)).toBeUndefined();
    expect(record(undefined)).toBeUndefined();
  });

  it('lists the weather by day', () => {
    const page = renderSharePage(
      view({
        weather: {
          shown: true,
          data: [
            {
              id: 'w',
              sunSourceId: 's',
              date: '2026-06-10',
              temperatureMax: 24.4,
              temperatureMin: 13.6,
              shortwaveRadiationSum: 25,
              weatherCode: 61,
              uvIndexMax: 6,
              precipitationSum: 3.4,
              sunrise: '2026-06-10T04:44',
              sunset: '2026-06-10T20:55',
            },
          ],
        },
      }),
    );
    expect(page).toContain(
      '<tr><td>Wed 10</td><td>Rain</td><td class="number">24 °C</td><td class="number">14 °C</td><td class="number">3.4 mm</td></tr>',
    );
  });
});

describe('renderNotFoundPage', () => {
  it('says only that there is nothing to see', () => {
    const page = renderNotFoundPage();
    expect(page).toContain('<h1>Not found</h1>');
    expect(page).toContain('not shared, or the address is wrong');
  });
});
