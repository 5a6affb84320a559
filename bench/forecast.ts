import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { skillScore, SOLAR_ACCURACY_DEFINITIONS } from '../libs/forecast/src/evaluation';
import { describeRetrainingRule } from '../libs/forecast/src/model/retraining';
import { MIN_TARGET_HOURS, MIN_VALIDATION_HOURS, TRAINING_DAYS } from '../libs/forecast/src/model/train';
import { DataError } from './forecast/data-error';
import { chooseDays } from './forecast/days';
import { writeFigures } from './forecast/figures';
import { BenchOptions, HELP, parseOptions, UsageError } from './forecast/options';
import { replaySite, ReplayResult, Setting, SiteData, timeTraining } from './forecast/replay';
import { SAMPLE } from './forecast/sample';
import {
  loadRows,
  loadTable,
  signed,
  solarCoverage,
  solarRows,
  solarTable,
  weatherPersistence,
} from './forecast/scores';
import { readSite, SiteSeries } from './forecast/site-input';
import { localDaysSpan } from './forecast/time-zones';
import { checkTargets, TargetFigures, targetLine } from './forecast/targets';

/**
 * `npm run bench:forecast`: the forecasting model's evaluation on measured data. One site per
 * run, from a plain CSV, an NREL PVDAQ export (with NSRDB PSM3 weather), an OPSD household file,
 * or with no input the synthetic sample in `bench/forecast/sample/`. Every scored local day is
 * forecast from its midnight by the production code, in two settings: (a) with the day's
 * measured weather as a perfect weather forecast (when there is GHI) and (b) without weather. It
 * prints the metrics with their definitions, writes plots and results.json, and exits 0; 2 for a
 * mistake on the command line, 1 for input it cannot score, saying why.
 */

const SETTING_NAME: Record<Setting, string> = {
  weather: '(a) measured weather as the forecast',
  history: '(b) no weather: history and physics',
};
const SHORT: Record<Setting, string> = { weather: '(a)', history: '(b)' };

const log = (line = '') => process.stdout.write(`${line}\n`);
const shown = (path: string) => {
  const relativePath = relative(process.cwd(), path);
  return relativePath.startsWith('..') ? path : relativePath;
};
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

const BENCH_DEFINITIONS = [
  'each scored local day is forecast from its local midnight with the 15 days of history before it (hours 1–24 of',
  '  the 168-hour forecast, 23/25 on DST days); the model is trained on the training days, then again on the days',
  `  before a scored day as the product’s scheduled job does (--retrain, by default: ${describeRetrainingRule()}),`,
  `  each time on at most the last ${TRAINING_DAYS} days, as the product's training job`,
  'setting (a) gives the model the measured GHI and temperature of the forecast days as a perfect weather forecast',
  '  (only with GHI in the input); setting (b) gives it no weather at all',
  ...SOLAR_ACCURACY_DEFINITIONS,
  'clear-sky power here: the array’s orientation as the model has it (inferred from the training days, or --installed',
  '  with --use-installed), Haurwitz clear sky',
  'base = the physics-only baseline: `forecast` without a model (30° equator-facing, or --installed with --use-installed;',
  '  PR 0.8, the given capacity)',
  'phys = the fitted physical model alone (the model’s orientation, 3 coefficients, no trees), setting (a) only',
  'load is scored over all hours, in W; SaY = same-as-yesterday load: the same hour of the last day with data (≤ 7 days back)',
  'weather persistence: r = the correlation of consecutive scored days’ daily clear-sky indices (as smart persistence',
  '  computes them); the best linear forecast of a day’s index from the day before’s beats repeating it by',
  '  1 − √((1 + r)/2) (0.29 at r = 0, 0.13 at r = 0.5): where the weather persists, yesterday is hard to beat without',
  '  weather. A figure for the daily index; hours add errors neither foresees',
];

function defaultResultsDirectory(): string {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  return join(__dirname, 'results', `forecast-${stamp}`);
}

/**
 * The run takes seconds to minutes: a results directory it could not write is a mistake on the
 * command line, said before the run, and nothing is created until the run has its results.
 */
function checkResultsDirectory(directory: string): void {
  let existing = directory;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory())
    throw new UsageError(`--results ${directory}: ${existing} is a file, not a directory`);
}

/** Below this share of its hours covered, setting (a) is said to be partly forecast without weather. */
const FULL_WEATHER_SHARE = 0.95;

/**
 * The share of the scored days' hours with PV above 0 (without PV, of those with load) that have
 * weather: setting (a) gives the model the measured weather as a perfect forecast, and an hour
 * without it is forecast as in setting (b).
 */
function weatherShare(site: SiteSeries, score: [string, string]): number {
  const [from, to] = localDaysSpan(score, site.timeZone);
  const series = site.solar ?? site.load;
  let hours = 0;
  let covered = 0;
  for (const [hour, value] of series ?? []) {
    if (hour < from || hour >= to || (site.solar && !(value > 0))) continue;
    hours++;
    if (Number.isFinite(site.ghi?.get(hour))) covered++;
  }
  return hours > 0 ? covered / hours : 0;
}

/** The learners a training in `setting` can fit from what the input holds. */
function learnersFor(setting: Setting, data: SiteData): string[] {
  const weather = setting === 'weather';
  return [
    ...(data.solar ? [...(weather ? ['solarWeather'] : []), 'solarHistory'] : []),
    ...(data.load ? [...(weather && data.temperature ? ['loadWeather'] : []), 'loadHistory'] : []),
  ];
}

function printTrainings(result: ReplayResult, data: SiteData) {
  for (const run of result.trainings) {
    const payload = run.model.payload as {
      pv: { orientation: { tilt: number; azimuth: number }; orientationSource: string; clearDays: number };
      training: {
        validation: Record<
          string,
          { rounds: number; rmse: number; referenceRmse: number; served?: string } | null
        >;
      };
    } | null;
    if (!payload) {
      log(`  model (${run.setting}, ${run.from}..${run.to}): ${run.dataPointsUsed} hours, nothing learned`);
      continue;
    }
    const { orientation, orientationSource, clearDays } = payload.pv;
    // A flat array has no azimuth: the fit keeps the first it tried, which means nothing.
    const plane =
      orientation.tilt === 0 ? 'tilt 0° (flat)' : `tilt ${orientation.tilt}° azimuth ${orientation.azimuth}°`;
    // Without PV there is no array to tell of.
    log(
      `  model (${run.setting}, ${run.from}..${run.to}): ${run.dataPointsUsed} hours, trained in ${run.seconds.toFixed(2)} s` +
        (data.solar ? `; orientation ${plane} (${orientationSource}, ${clearDays} clear days)` : ''),
    );
    const expected = learnersFor(run.setting, data);
    for (const [set, summary] of Object.entries(payload.training.validation)) {
      if (!summary) {
        if (expected.includes(set))
          log(
            `    ${set.padEnd(13)} not trained: under ${MIN_TARGET_HOURS} hours with data, or under ` +
              `${MIN_VALIDATION_HOURS} of them to hold out; its baseline serves`,
          );
        continue;
      }
      log(
        `    ${set.padEnd(13)} ${String(summary.rounds).padStart(3)} trees, hold-out RMSE ${summary.rmse.toFixed(0)} W, ` +
          `its baseline ${summary.referenceRmse.toFixed(0)} W: ${summary.served ?? 'learned'} served`,
      );
    }
    if (run.model.servedModel) {
      const served = run.model.servedModel;
      log(
        data.solar
          ? `    served: solar ${served.solar}, solar without weather ${served.solarWithoutWeather}, ` +
              `load ${served.load}; orientation ${served.orientation.source}`
          : `    served: load ${served.load}`,
      );
    }
  }
}

function run(options: BenchOptions): void {
  const started = Date.now();
  const directory = resolve(options.results ?? defaultResultsDirectory());
  checkResultsDirectory(directory);
  log('Forecast benchmark: day-ahead, hourly, from each local midnight');
  log(
    `machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; Node ${process.version}`,
  );
  log('definitions:');
  for (const line of BENCH_DEFINITIONS) log(`  ${line}`);
  log();

  const input =
    options.layout === 'sample'
      ? `the synthetic sample ${SAMPLE.relativePath} (no input given; --help for the options)`
      : `${options.path} (${options.layout})`;
  log(`== Input: ${input}`);
  const capacity = options.capacityWatts;
  const siteLabel =
    options.layout === 'sample'
      ? `synthetic sample, Berlin, ${(capacity ?? 0) / 1000} kW`
      : `${options.latitude}°, ${options.longitude}°${capacity ? `, ${capacity / 1000} kW` : ''}`;
  log(
    `  site: latitude ${options.latitude}°, longitude ${options.longitude}°, capacity ` +
      `${capacity === null ? '— (no PV)' : `${capacity} W`}`,
  );
  const site = readSite(options);
  for (const note of site.notes) log(`  ${note}`);
  log(`  local days: ${site.timeZone}${site.timeZoneNote ? `, ${site.timeZoneNote}` : ''}`);
  const days = chooseDays(
    [site.solar, site.load].filter((series) => series !== null),
    site.timeZone,
    options,
  );
  // Weather that misses the scored days (another year, another part of it) would score setting
  // (a) as (b) under (a)'s name.
  let { ghi, temperature } = site;
  if (ghi) {
    const share = weatherShare(site, days.score);
    if (share === 0) {
      log(
        `  weather: none on the scored days' hours${site.solar ? ' with PV' : ''}, so setting (a) is not scored`,
      );
      [ghi, temperature] = [null, null];
    } else if (share < FULL_WEATHER_SHARE)
      log(
        `  weather: on ${(100 * share).toFixed(0)} % of the scored days' hours${site.solar ? ' with PV' : ''}; ` +
          `setting (a) forecasts the others without weather, as (b) does`,
      );
  }
  const data: SiteData = {
    name: options.layout,
    site: {
      latitude: options.latitude,
      longitude: options.longitude,
      capacityWatts: capacity,
      batteryCapacityWh: null,
      orientation: options.useInstalled ? options.installed : null,
    },
    timeZone: site.timeZone,
    solar: site.solar,
    load: site.load,
    ghi,
    temperature,
    train: days.train,
    score: days.score,
    retrain: options.retrain,
  };
  log(
    `  train ${days.train.join('..')}${options.train ? '' : ' (default)'}, score ${days.score.join('..')}` +
      `${options.score ? '' : ' (default)'} (local days), retrain: ${data.retrain}; weather: ` +
      (data.ghi ? 'GHI present, settings (a) and (b)' : 'none, setting (b) only'),
  );
  if (options.plotWeek && (options.plotWeek < days.score[0] || options.plotWeek > days.score[1]))
    throw new UsageError(
      `--plot-week ${options.plotWeek} is not one of the scored days, ${days.score.join('..')}`,
    );
  const result = replaySite(data, log);
  printTrainings(result, data);

  const summary: string[] = [];
  const results: Record<string, unknown> = {};
  const trainedLast = (setting: Setting) => result.trainings.filter((run) => run.setting === setting).at(-1);
  const orientationOf = (setting: Setting) => trainedLast(setting)?.model.servedModel?.orientation ?? null;
  const targetFigures: TargetFigures = {
    weatherNrmse: null,
    historySkill: null,
    loadSkill: null,
    // An orientation given to the model (--use-installed) is not inferred: nothing to check.
    inferred: options.useInstalled ? null : (orientationOf('weather') ?? orientationOf('history')),
    installed: options.installed,
  };
  for (const setting of result.settings) {
    if (data.solar && capacity) {
      const coverage = solarCoverage(result.hours, setting);
      const rows = solarRows(result.hours, setting, capacity);
      const overall = rows.at(-1);
      if (!overall)
        throw new DataError(
          `no solar hour could be scored in setting ${SHORT[setting]}: of ${coverage.daytime} daytime hours in ` +
            `${days.score.join('..')}, ${coverage.measured} have a measurement and ${coverage.withPersistence} of those ` +
            `a smart-persistence value (yesterday measured over half its clear-sky energy)`,
        );
      log();
      log(`Solar, setting ${SETTING_NAME[setting]}; daytime hours, n = normalised by ${capacity} W`);
      log(
        `  scored ${coverage.scored} of ${coverage.daytime} daytime hours (${coverage.daytime - coverage.measured} ` +
          `without a measurement, ${coverage.measured - coverage.withPersistence} without smart persistence)`,
      );
      log(solarTable(rows));
      results[`solar/${setting}`] = { coverage, rows };
      if (setting === 'weather') targetFigures.weatherNrmse = overall.model.nrmse;
      else targetFigures.historySkill = skillScore(overall.model, overall.smartPersistence);
      summary.push(
        `solar ${SHORT[setting]}: nRMSE ${percent(overall.model.nrmse)}, nMAE ${percent(overall.model.nmae)} ` +
          `over ${overall.hours} daytime hours; skill vs smart persistence ` +
          `${signed(skillScore(overall.model, overall.smartPersistence)).trim()} ` +
          `(SP nRMSE ${percent(overall.smartPersistence.nrmse)}), vs physics-only baseline ` +
          `${signed(skillScore(overall.model, overall.baseline)).trim()}` +
          (overall.fittedPhysics
            ? `, vs fitted physics ${signed(skillScore(overall.model, overall.fittedPhysics)).trim()}`
            : ''),
      );
    }
  }
  const persistence = data.solar ? weatherPersistence(result.hours) : null;
  if (persistence) {
    summary.push(
      `weather persistence of the scored days: daily clear-sky index ${persistence.meanIndex.toFixed(2)} on average, ` +
        `r = ${persistence.correlation.toFixed(2)} from one day to the next (${persistence.pairs} pairs of days); ` +
        `the best linear forecast of the index from the day before's beats repeating it by ` +
        `${persistence.linearSkillOverPersistence.toFixed(3)}`,
    );
    results.weatherPersistence = persistence;
  }
  for (const setting of result.settings) {
    if (data.load) {
      const rows = loadRows(result.hours, setting);
      const overall = rows.at(-1);
      if (!overall)
        throw new DataError(
          `no load hour could be scored in setting ${SHORT[setting]}: each needs a measurement and the same hour ` +
            `measured on one of the 7 days before`,
        );
      log();
      log(`Load, setting ${SETTING_NAME[setting]}; all hours`);
      log(loadTable(rows));
      results[`load/${setting}`] = rows;
      if (setting === 'history') targetFigures.loadSkill = skillScore(overall.model, overall.sameAsYesterday);
      summary.push(
        `load ${SHORT[setting]}: RMSE ${overall.model.rmse.toFixed(0)} W, MAE ${overall.model.mae.toFixed(0)} W ` +
          `over ${overall.hours} hours; skill vs same-as-yesterday ${signed(skillScore(overall.model, overall.sameAsYesterday)).trim()}`,
      );
    }
  }

  const targets = checkTargets(targetFigures);
  results.targets = targets;

  if (options.timeTraining) {
    log();
    for (const timing of timeTraining(data, TRAINING_DAYS)) {
      const line =
        `training on up to the product's ${TRAINING_DAYS} days (${timing.from}..${timing.to}, ${timing.hours} h), setting ${timing.setting}: ` +
        `${timing.seconds.toFixed(2)} s, RSS after ${timing.rssMiB.toFixed(0)} MiB`;
      log(`  ${line}`);
      summary.push(line);
    }
  }

  mkdirSync(directory, { recursive: true });
  const figures = writeFigures({
    result,
    directory,
    siteLabel,
    timeZone: site.timeZone,
    capacityWatts: capacity,
    plotWeek: options.plotWeek,
    hasSolar: data.solar !== null,
    hasLoad: data.load !== null,
  });
  const peakRss = process.resourceUsage().maxRSS / 1024;
  const wallSeconds = (Date.now() - started) / 1000;
  const jsonPath = join(directory, 'results.json');
  writeFileSync(
    jsonPath,
    JSON.stringify(
      {
        options,
        site: { timeZone: site.timeZone, notes: site.notes },
        days,
        definitions: BENCH_DEFINITIONS,
        summary,
        results,
        figures: figures.map((figure) => ({ ...figure, file: shown(figure.file) })),
        peakRssMiB: peakRss,
        wallSeconds,
      },
      null,
      2,
    ),
  );

  log();
  log('== Summary');
  if (options.layout === 'sample')
    log(
      '  (synthetic sample: these figures show that the bench runs, not how accurate the model is on real data)',
    );
  for (const line of summary) log(`  ${line}`);
  log('  targets (issue 21, set on NREL system 50 and the Konstanz household; docs/performance.md):');
  for (const check of targets) log(`    ${targetLine(check)}`);
  log(`  peak RSS of the whole run: ${peakRss.toFixed(0)} MiB; wall time ${wallSeconds.toFixed(1)} s`);
  log(`  plots (SVG, open in a browser) and results.json written to ${shown(directory)}/:`);
  for (const figure of figures) log(`    ${shown(figure.file)}: ${figure.what}`);
  log(`    ${shown(jsonPath)}: every table above, as JSON`);
}

function main(argv: string[]): number {
  try {
    const parsed = parseOptions(argv);
    if (parsed.help) {
      log(HELP);
      return 0;
    }
    run(parsed.options);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n(npm run bench:forecast -- --help lists the options)\n`);
      return 2;
    }
    if (error instanceof DataError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
