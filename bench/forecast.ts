import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { householdCentroids, psm3ClearSkyCentroid, pvWeatherCorrelation } from './forecast/alignment';
import { readOpsdHousehold, readPsm3, readPvdaq } from './forecast/data-files';
import { replaySite, ReplayResult, SiteData, timeTraining } from './forecast/replay';
import { loadRows, loadTable, skill, solarRows, solarTable } from './forecast/scores';

/**
 * `npm run bench:forecast`: the forecasting model's honest evaluation on measured data (see
 * `shared/data/real/README.md`). Site 1 (default: NREL PVDAQ system 50, Golden CO, with NSRDB
 * PSM3 weather) scores solar day-ahead in two settings, (a) with the day's measured weather as a
 * perfect weather forecast and (b) without any weather; site 2 (default: the OPSD Konstanz
 * household, no weather) scores solar and load in setting (b). Every file, coordinate, capacity
 * and range is an argument, so any site in the same formats can be scored.
 */

const DATA = join(__dirname, '..', '..', 'shared', 'data', 'real');

const { values: flags } = parseArgs({
  options: {
    pv: { type: 'string', default: join(DATA, 'system_50_ac_power_2_full_DST_2011-2012.csv') },
    'pv-column': { type: 'string', default: 'ac_power_2' },
    'pv-time-zone': { type: 'string', default: 'America/Denver' },
    weather: { type: 'string', default: join(DATA, 'system_50_ac_power_2_full_DST_psm3_2011-2012.csv') },
    lat: { type: 'string', default: '39.7406' },
    lon: { type: 'string', default: '-105.1775' },
    capacity: { type: 'string', default: '3500' },
    train: { type: 'string', default: '2011-04-15:2011-12-31' },
    score: { type: 'string', default: '2012-01-01:2012-12-31' },
    retrain: { type: 'string', default: 'none' },
    load: { type: 'string', default: join(DATA, 'household_data_60min_singleindex.csv') },
    'load-prefix': { type: 'string', default: 'DE_KN_residential4' },
    'load-time-zone': { type: 'string', default: 'Europe/Berlin' },
    'load-lat': { type: 'string', default: '47.66' },
    'load-lon': { type: 'string', default: '9.18' },
    'load-capacity': { type: 'string', default: '10000' },
    'load-train': { type: 'string', default: '2015-10-12:2016-10-11' },
    'load-score': { type: 'string', default: '2016-10-12:2017-02-08' },
    'load-retrain': { type: 'string', default: 'none' },
    'no-cest-shift': { type: 'boolean', default: false },
    'skip-pv': { type: 'boolean', default: false },
    'skip-load': { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

const range = (text: string, name: string): [string, string] => {
  const match = /^(\d{4}-\d{2}-\d{2}):(\d{4}-\d{2}-\d{2})$/.exec(text);
  if (!match) throw new Error(`--${name} wants YYYY-MM-DD:YYYY-MM-DD, got ${text}`);
  return [match[1], match[2]];
};
const numberFlag = (text: string, name: string) => {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new Error(`--${name} wants a number, got ${text}`);
  return value;
};
const retrainFlag = (text: string, name: string) => {
  if (text !== 'none' && text !== 'monthly') throw new Error(`--${name} wants none or monthly`);
  return text;
};

const log = (line = '') => process.stdout.write(`${line}\n`);
const results: Record<string, unknown> = {};

function printSite(data: SiteData, result: ReplayResult, capacity: number) {
  for (const run of result.trainings) {
    const payload = run.model.payload as {
      pv: { orientation: { tilt: number; azimuth: number }; orientationSource: string; clearDays: number };
      training: {
        validation: Record<string, { rounds: number; rmse: number; referenceRmse: number } | null>;
      };
    };
    const { orientation, orientationSource, clearDays } = payload.pv;
    log(
      `  model (${run.setting}, ${run.from}..${run.to}): ${run.dataPointsUsed} hours, trained in ${run.seconds.toFixed(2)} s; ` +
        `orientation tilt ${orientation.tilt}° azimuth ${orientation.azimuth}° (${orientationSource}, ${clearDays} clear days)`,
    );
    for (const [set, summary] of Object.entries(payload.training.validation)) {
      if (!summary) continue;
      log(
        `    ${set.padEnd(13)} ${String(summary.rounds).padStart(3)} trees, hold-out RMSE ${summary.rmse.toFixed(0)} W ` +
          `(what the trees correct: ${summary.referenceRmse.toFixed(0)} W)`,
      );
    }
  }
  const settingName = {
    weather: '(a) measured weather as the forecast',
    history: '(b) no weather: history and physics',
  };
  for (const setting of result.settings) {
    if (data.solar) {
      const rows = solarRows(result.hours, setting);
      log();
      log(`Solar, setting ${settingName[setting]}; daylight hours, n = normalised by ${capacity} W`);
      log(solarTable(rows, capacity));
      results[`${data.name}/solar/${setting}`] = rows;
    }
    if (data.load) {
      const rows = loadRows(result.hours, setting);
      log();
      log(`Load, setting ${settingName[setting]}; all hours`);
      log(loadTable(rows));
      results[`${data.name}/load/${setting}`] = rows;
    }
  }
}

function main() {
  const started = Date.now();
  log('Forecast benchmark: day-ahead, hourly, from each local midnight');
  log(
    `machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; Node ${process.version}`,
  );
  log('definitions:');
  for (const line of [
    'each scored local day is forecast from its local midnight with the 15 days of history before it (hours 1–24 of the',
    '  168-hour forecast, 23/25 on DST days); the model is trained once on the training range unless --retrain monthly',
    'solar is scored over daylight hours (mean solar elevation in the hour > 0) that have a measurement; nMAE and nRMSE',
    '  are divided by the given capacity; skill = 1 − RMSE(model) / RMSE(reference) on the same hours',
    'SP = smart persistence: the clear-sky index of power at the same hour of the last day with data (≤ 7 days back)',
    '  times today’s clear-sky power (the array’s inferred orientation, Haurwitz clear sky); the day’s index where the',
    '  clear-sky power of that hour is under 5 % of the limit',
    'base = the physics-only baseline: `forecast` without a model (30° equator-facing, PR 0.8, the given capacity)',
    'phys = the fitted physical model alone (inferred orientation, 3 coefficients, no trees), setting (a) only',
    'SaY = same-as-yesterday load: the same hour of the last day with data (≤ 7 days back)',
  ])
    log(`  ${line}`);
  const summary: string[] = [];

  if (!flags['skip-pv']) {
    const capacity = numberFlag(flags.capacity, 'capacity');
    const timeZone = flags['pv-time-zone'];
    log();
    log(`== Site 1: ${flags.pv}`);
    const pv = readPvdaq(flags.pv, timeZone, flags['pv-column']);
    log(
      `  PV: ${pv.quarters} quarter-hours (${pv.emptyQuarters} empty, ${pv.negativeQuarters} negative → 0), ` +
        `${pv.power.size} UTC hours; wall times localised in ${timeZone}`,
    );
    const weather = flags.weather ? readPsm3(flags.weather) : null;
    const lat = numberFlag(flags.lat, 'lat');
    const lon = numberFlag(flags.lon, 'lon');
    if (weather) {
      log(
        `  weather: ${weather.rows} half-hours → ${weather.ghi.size} UTC hours (trapezoid of the :00, :30, :00 samples)`,
      );
      const centroid = psm3ClearSkyCentroid(weather.ghiClear, lon);
      log(
        `  check: PSM3 clear-sky GHI centroid − solar noon = ${(centroid * 60).toFixed(1)} min (0: stamps are instants)`,
      );
      for (const check of pvWeatherCorrelation(pv.power, weather.ghi)) log(`  check: ${check}`);
    }
    const data: SiteData = {
      name: 'site1',
      site: { latitude: lat, longitude: lon, capacityWatts: capacity, batteryCapacityWh: null },
      timeZone,
      solar: pv.power,
      load: null,
      ghi: weather?.ghi ?? null,
      temperature: weather?.temperature ?? null,
      train: range(flags.train, 'train'),
      score: range(flags.score, 'score'),
      retrain: retrainFlag(flags.retrain, 'retrain'),
    };
    log(
      `  train ${data.train.join('..')}, score ${data.score.join('..')} (local days), retrain: ${data.retrain}`,
    );
    const result = replaySite(data, log);
    printSite(data, result, capacity);
    for (const setting of result.settings) {
      const overall = solarRows(result.hours, setting).at(-1);
      if (!overall) continue;
      summary.push(
        `site 1 solar ${setting === 'weather' ? '(a)' : '(b)'}: nRMSE ${((100 * overall.model.rmse) / capacity).toFixed(1)} %, ` +
          `skill vs smart persistence ${skill(overall.model, overall.smartPersistence).toFixed(3)}, ` +
          `vs physics-only baseline ${skill(overall.model, overall.baseline).toFixed(3)}` +
          (overall.fittedPhysics
            ? `, vs fitted physics ${skill(overall.model, overall.fittedPhysics).toFixed(3)}`
            : ''),
      );
    }
    log();
    for (const timing of timeTraining(data, 365)) {
      const line =
        `training on a full year (${timing.from}..${timing.to}, ${timing.hours} h), setting ${timing.setting}: ` +
        `${timing.seconds.toFixed(2)} s, RSS after ${timing.rssMiB.toFixed(0)} MiB`;
      log(`  ${line}`);
      summary.push(`site 1 ${line}`);
    }
  }

  if (!flags['skip-load']) {
    const timeZone = flags['load-time-zone'];
    const capacity = numberFlag(flags['load-capacity'], 'load-capacity');
    const lat = numberFlag(flags['load-lat'], 'load-lat');
    const lon = numberFlag(flags['load-lon'], 'load-lon');
    log();
    log(`== Site 2: ${flags.load}`);
    const cestShift = !flags['no-cest-shift'];
    for (const line of householdCentroids(flags.load, flags['load-prefix'], lon)) log(`  check: ${line}`);
    const household = readOpsdHousehold(flags.load, {
      prefix: flags['load-prefix'],
      cestShift,
      differenceHour: 'before',
    });
    log(
      `  ${household.rows} rows, ${household.shiftedRows} moved back an hour (CEST), ${household.pv.size} UTC hours; ` +
        `${household.negativeLoadHours} negative load hours → 0`,
    );
    const data: SiteData = {
      name: 'site2',
      site: { latitude: lat, longitude: lon, capacityWatts: capacity, batteryCapacityWh: null },
      timeZone,
      solar: household.pv,
      load: household.load,
      ghi: null,
      temperature: null,
      train: range(flags['load-train'], 'load-train'),
      score: range(flags['load-score'], 'load-score'),
      retrain: retrainFlag(flags['load-retrain'], 'load-retrain'),
    };
    log(
      `  train ${data.train.join('..')}, score ${data.score.join('..')} (local days), retrain: ${data.retrain}`,
    );
    const result = replaySite(data, log);
    printSite(data, result, capacity);
    const solar = solarRows(result.hours, 'history').at(-1);
    const load = loadRows(result.hours, 'history').at(-1);
    if (solar)
      summary.push(
        `site 2 solar (b): nRMSE ${((100 * solar.model.rmse) / capacity).toFixed(1)} %, skill vs smart persistence ${skill(solar.model, solar.smartPersistence).toFixed(3)}`,
      );
    if (load)
      summary.push(
        `site 2 load (b): RMSE ${load.model.rmse.toFixed(0)} W, skill vs same-as-yesterday ${skill(load.model, load.sameAsYesterday).toFixed(3)}`,
      );
  }

  const peakRss = process.resourceUsage().maxRSS / 1024;
  log();
  log('== Summary');
  for (const line of summary) log(`  ${line}`);
  log(
    `  peak RSS of the whole run: ${peakRss.toFixed(0)} MiB; wall time ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (flags.out) {
    writeFileSync(flags.out, JSON.stringify({ flags, summary, peakRssMiB: peakRss, results }, null, 2));
    log(`  results written to ${flags.out}`);
  }
}

main();
