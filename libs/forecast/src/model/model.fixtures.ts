import { HourlyObservation, HourlyWeather, Site } from '../forecaster';
import { seededRandom } from './gradient-boosting';
import { decompose, HOUR_MS, Orientation, planeOfArray, sunGeometry } from './pv-physics';

/**
 * A small synthetic installation for the specs, with relations the model should find: solar is
 * the plane irradiance of a known orientation times a known scale and temperature coefficient;
 * load has a known daily and weekly shape; the state of charge follows a simple energy balance.
 * Pure and seeded. (The telemetry lib has a richer generator, but `libs/forecast` must not
 * import it.)
 */

export const SYNTHETIC_SITE: Site = {
  latitude: 48.1,
  longitude: 11.6,
  capacityWatts: 4000,
  batteryCapacityWh: 8000,
};
export const SYNTHETIC_ORIENTATION: Orientation = { tilt: 35, azimuth: 200 };
/** W per W/m² on the plane at 25 °C. */
export const SYNTHETIC_SCALE = 3.4;
export const SYNTHETIC_TEMPERATURE_COEFFICIENT = -0.004;

export interface SyntheticSeries {
  history: HourlyObservation[];
  weather: HourlyWeather[];
  /** Per hour: the true values, for scoring. */
  solar: number[];
  load: number[];
}

const DAY_MS = 86_400_000;

export function syntheticLoad(at: number, longitude: number): number {
  const local = at / HOUR_MS + 0.5 + longitude / 15;
  const hour = ((local % 24) + 24) % 24;
  const weekday = (((Math.floor(local / 24) + 4) % 7) + 7) % 7;
  const weekend = weekday === 0 || weekday === 6;
  const bump = (centre: number, width: number) => Math.exp(-(((hour - centre) / width) ** 2));
  return 350 + (weekend ? 900 : 250) * bump(12.5, 2.5) + 900 * bump(19, 1.6) + 400 * bump(7, 1);
}

/** Hourly telemetry and weather over [start, start + days). */
export function syntheticSeries(start: number, days: number, seed = 1): SyntheticSeries {
  const site = SYNTHETIC_SITE;
  const hours = days * 24;
  const geometry = sunGeometry(start, hours, site.latitude, site.longitude);
  const random = seededRandom(seed);
  const dayClearness: number[] = [];
  for (let day = 0; day < days; day++) {
    const draw = random();
    dayClearness.push(draw < 0.45 ? 0.95 : draw < 0.8 ? 0.5 + 0.3 * random() : 0.15 + 0.15 * random());
  }
  const ghi = new Float64Array(hours);
  const temperature = new Float64Array(hours);
  const clearness = new Float64Array(hours);
  for (let hour = 0; hour < hours; hour++) {
    const at = start + hour * HOUR_MS;
    const day = Math.floor(hour / 24);
    clearness[hour] = Math.min(1, Math.max(0.05, dayClearness[day] + 0.08 * (random() - 0.5)));
    ghi[hour] = geometry.clearGhiMean[hour] * clearness[hour];
    const season = Math.cos((2 * Math.PI * (at / DAY_MS - 196)) / 365.25);
    const daily = Math.sin((2 * Math.PI * ((at / HOUR_MS + site.longitude / 15 - 9) % 24)) / 24);
    temperature[hour] = 10 + 10 * season + 5 * daily;
  }
  const plane = planeOfArray(geometry, decompose(geometry, ghi), SYNTHETIC_ORIENTATION);
  const capacity = site.capacityWatts ?? 4000;
  const battery = site.batteryCapacityWh ?? 8000;
  let stored = 0.5 * battery;
  const history: HourlyObservation[] = [];
  const weather: HourlyWeather[] = [];
  const solar: number[] = [];
  const load: number[] = [];
  for (let hour = 0; hour < hours; hour++) {
    const at = start + hour * HOUR_MS;
    const derate = 1 + SYNTHETIC_TEMPERATURE_COEFFICIENT * (temperature[hour] - 25);
    const solarPower = Math.min(capacity, Math.max(0, SYNTHETIC_SCALE * plane[hour] * derate));
    const loadPower = syntheticLoad(at, site.longitude) * (0.95 + 0.1 * random());
    stored = Math.min(battery, Math.max(0.05 * battery, stored + solarPower - loadPower));
    solar.push(solarPower);
    load.push(loadPower);
    history.push({
      hour: new Date(at),
      solarPower,
      loadPower,
      stateOfCharge: (100 * stored) / battery,
    });
    const cloudCover = Math.round(100 * (1 - clearness[hour]));
    weather.push({
      hour: new Date(at),
      temperature: temperature[hour],
      shortwaveRadiation: ghi[hour],
      cloudCover,
      weatherCode: cloudCover < 20 ? 0 : cloudCover < 50 ? 2 : 3,
      uvIndex: ghi[hour] / 100,
      precipitation: clearness[hour] < 0.3 ? 0.5 : 0,
    });
  }
  return { history, weather, solar, load };
}
