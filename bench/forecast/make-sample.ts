import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { clearSkyGhi } from '../../libs/forecast/src/solar';
import {
  cloudTransmission,
  loadPowerAt,
  resolveSystem,
  solarPowerAt,
} from '../../libs/synthetic/src/synthetic-device';
import { valueNoise } from '../../libs/synthetic/src/synthetic-noise';
import { SAMPLE } from './sample';
import { localDateStart, zoneOffsetMs } from './time-zones';

/**
 * Writes the benchmark's sample in the plain CSV layout:
 * `node --require ./bench/register.js bench/forecast/make-sample.ts`. Hourly means of the
 * project's synthetic device (PV from the clear sky and the day's clouds, a household's load),
 * sampled every 5 minutes, with the PV derated by cell temperature. The GHI column is weather
 * data as a service would give it, not what the panels saw: the same clouds half an hour early,
 * with a slowly drifting error of up to ±15 %. The air temperature is a smooth seasonal and daily
 * cycle, warmer on sunny days. Stamps carry Berlin's offset, +01:00 in winter and +02:00 in
 * summer. Deterministic: the same file every time.
 */

const HOUR_MS = 3_600_000;
const STEP_MS = 5 * 60_000;
const STEPS = HOUR_MS / STEP_MS;
const SEED = 2025;
/** Noise channel of the weather data's error: any number the synthetic device does not use. */
const WEATHER_ERROR_CHANNEL = 101;
const TEMPERATURE_COEFFICIENT = -0.004;
/** Cells run this many K above the air per W/m² of sunlight. */
const CELL_HEATING = 0.03;

function stamp(at: number, timeZone: string): string {
  const offset = zoneOffsetMs(at, timeZone);
  const minutes = Math.abs(offset / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${new Date(at + offset).toISOString().slice(0, 19)}${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

function airTemperature(at: number, longitude: number, clearness: number): number {
  const dayOfYear = (at / 86_400_000) % 365.25;
  const solarHour = (((at / HOUR_MS + longitude / 15) % 24) + 24) % 24;
  const season = -Math.cos((2 * Math.PI * (dayOfYear - 15)) / 365.25);
  const daily = Math.sin((2 * Math.PI * (solarHour - 9)) / 24);
  return 9.5 + 9.5 * season + (2 + 4 * clearness) * daily;
}

function main() {
  const { site } = SAMPLE;
  const system = resolveSystem({
    latitude: site.latitude,
    longitude: site.longitude,
    capacityWatts: site.capacityWatts,
    seed: SEED,
  });
  const start = localDateStart(SAMPLE.from, site.timeZone);
  const end = localDateStart(
    new Date(Date.parse(`${SAMPLE.to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10),
    site.timeZone,
  );
  const lines = ['timestamp,pv_power_w,load_power_w,ghi_w_m2,air_temperature_c'];
  for (let hour = start; hour < end; hour += HOUR_MS) {
    let pv = 0;
    let load = 0;
    let ghi = 0;
    let reported = 0;
    let clear = 0;
    for (let step = 0; step < STEPS; step++) {
      const at = hour + (step + 0.5) * STEP_MS;
      const sky = clearSkyGhi(new Date(at), site.latitude, site.longitude);
      load += loadPowerAt(system, at);
      clear += sky;
      if (sky === 0) continue;
      const seen = sky * cloudTransmission(system, at);
      const temperature = airTemperature(at, site.longitude, cloudTransmission(system, at));
      const derate = 1 + TEMPERATURE_COEFFICIENT * (temperature + CELL_HEATING * seen - 25);
      pv += solarPowerAt(system, at) * derate;
      ghi += seen;
      const error = 0.85 + 0.3 * valueNoise(SEED, WEATHER_ERROR_CHANNEL, at, 3 * HOUR_MS);
      reported += sky * cloudTransmission(system, at - HOUR_MS / 2) * error;
    }
    const clearness = clear > 0 ? ghi / clear : 0.5;
    const temperature = airTemperature(hour + HOUR_MS / 2, site.longitude, clearness);
    lines.push(
      [
        stamp(hour, site.timeZone),
        (pv / STEPS).toFixed(1),
        (load / STEPS).toFixed(1),
        (reported / STEPS).toFixed(1),
        temperature.toFixed(1),
      ].join(','),
    );
  }
  mkdirSync(dirname(SAMPLE.path), { recursive: true });
  writeFileSync(SAMPLE.path, `${lines.join('\n')}\n`);
  process.stdout.write(`${lines.length - 1} hours written to ${SAMPLE.relativePath}\n`);
}

main();
