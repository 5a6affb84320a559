import { Client } from 'pg';
import { Http } from '@solar/testing';
import { postTelemetry } from './api-harness';

const MINUTE = 60_000;

export type SharingFlags = {
  isEnabled: boolean;
  shareMonitor: boolean;
  shareWeather: boolean;
  shareForecast: boolean;
  shareReturns: boolean;
};

export const EVERYTHING_SHARED: SharingFlags = {
  isEnabled: true,
  shareMonitor: true,
  shareWeather: true,
  shareForecast: true,
  shareReturns: true,
};

export const NOTHING_SHARED: SharingFlags = {
  isEnabled: false,
  shareMonitor: false,
  shareWeather: false,
  shareForecast: false,
  shareReturns: false,
};

/** A reading of a sunny morning: `minutes` after UTC midnight. */
export interface Reading {
  timestamp: string;
  solarPower: number;
  stateOfCharge: number;
  loadPower: number;
  dailyEnergyProduced: number;
}

/**
 * Readings every 20 minutes from 04:00 UTC up to two minutes before `now` (a bell-shaped day
 * peaking at 5 kW at 12:00), with the device's daily energy counter rising accordingly.
 */
export function sunnyMorning(now: Date): Reading[] {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const readings: Reading[] = [];
  let energy = 0;
  const last = now.getTime() - 2 * MINUTE;
  for (let at = midnight + 4 * 60 * MINUTE; at <= last; at += 20 * MINUTE) {
    const hours = (at - midnight) / (60 * MINUTE);
    const solarPower = Math.round(5000 * Math.sin((Math.PI * (hours - 4)) / 16));
    energy += (solarPower / 1000) * (20 / 60);
    readings.push({
      timestamp: new Date(at).toISOString(),
      solarPower,
      stateOfCharge: Math.min(95, Math.round(30 + (hours - 4) * 7)),
      loadPower: 400 + Math.round(hours * 10),
      dailyEnergyProduced: Math.round(energy * 100) / 100,
    });
  }
  const final = { ...readings[readings.length - 1], timestamp: new Date(last).toISOString() };
  readings[readings.length - 1] = final;
  return readings;
}

export async function configureSharing(
  http: Http,
  cookie: string,
  sunSourceId: string,
  flags: Partial<SharingFlags>,
): Promise<void> {
  await http
    .put(`/api/sharing/${sunSourceId}`)
    .set('Cookie', cookie)
    .send({ ...NOTHING_SHARED, ...flags })
    .expect(200);
}

/**
 * A source with a location, a price and a cost, its morning posted through the webhook, a
 * stored 7-day forecast, and sharing set to `flags`.
 */
export async function createSharedInstallation(
  http: Http,
  db: Client,
  cookie: string,
  options: { name: string; now: Date; flags?: Partial<SharingFlags>; description?: string },
): Promise<{ id: string; secret: string; readings: Reading[] }> {
  const created = await http
    .post('/api/sunsources')
    .set('Cookie', cookie)
    .send({
      name: options.name,
      description: options.description ?? 'Twelve panels on the south roof',
      connectionType: 'Webhook',
      latitude: 48.2,
      longitude: 16.37,
      installedCapacityWatts: 5400,
      currency: 'EUR',
      initialKwhPrice: 0.32,
      systemCost: 9000,
    })
    .expect(201);
  const source = {
    id: created.body.id as string,
    secret: created.body.connectionDetails.webhookSecret as string,
  };
  const readings = sunnyMorning(options.now);
  for (const reading of readings) {
    const response = await postTelemetry(http, source, reading).expect(200);
    expect(response.body).toEqual({ message: 'Data accepted', stored: true });
  }
  const today = Date.UTC(options.now.getUTCFullYear(), options.now.getUTCMonth(), options.now.getUTCDate());
  const daily = [24.1, 18.7, 9.2, 12.5, 26.3, 27.8, 21.4].map((kwh, index) => ({
    date: new Date(today + index * 86_400_000).toISOString().slice(0, 10),
    solarProductionKwh: kwh,
    loadConsumptionKwh: 9,
    batteryChargeKwh: 3,
  }));
  await db.query(
    `INSERT INTO predictions (sun_source_id, job_id, created_at, predictions, daily) VALUES ($1, $2, $3, '[]', $4)`,
    [source.id, `predict_${source.id}_1`, new Date(today + 6 * 3_600_000), JSON.stringify(daily)],
  );
  await configureSharing(http, cookie, source.id, options.flags ?? EVERYTHING_SHARED);
  return { ...source, readings };
}
