import {
  chooseCestShift,
  clockChangeJumps,
  choosePvdaqClock,
  PvdaqClock,
  psm3ClearSkyCentroid,
  pvCentreOffsetMinutes,
  pvWeatherCorrelation,
} from './alignment';
import { checkCoverage } from './coverage';
import { DataError } from './data-error';
import { fileLines, HourlySeries } from './data-files';
import { householdSeries, readOpsd } from './opsd';
import type { BenchOptions } from './options';
import { PlainCsvSeries, readPlainCsv } from './plain-csv';
import { fixedOffsetZone, zoneOffsetMs } from './time-zones';
import { readPsm3 } from './psm3';
import { parsePvdaq } from './pvdaq';
import { UsageError } from './options';

/**
 * Reads the input a run names (or the shipped sample) into the hourly series the replay takes,
 * with a line for the report on each thing done to the data and each time-alignment check.
 */

export interface SiteSeries {
  solar: HourlySeries | null;
  load: HourlySeries | null;
  ghi: HourlySeries | null;
  temperature: HourlySeries | null;
  /** Zone whose local days are scored. */
  timeZone: string;
  /** Why that zone, when it was not given. */
  timeZoneNote: string | null;
  notes: string[];
}

const utcHour = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;
const count = (value: number) => value.toLocaleString('en-US');

/** Hourly PV peak against the capacity: a column or a capacity in the wrong unit is off by 1000. */
function checkUnits(solar: HourlySeries, capacityWatts: number, what: string): void {
  let peak = 0;
  for (const value of solar.values()) peak = Math.max(peak, value);
  const capacity = `${capacityWatts / 1000} kW`;
  if (peak === 0)
    throw new DataError(
      `${what} is 0 in every hour (values below 0 read as 0): nothing to score, or the wrong column is read as ${what}`,
    );
  if (peak < 0.02 * capacityWatts)
    throw new DataError(
      `${what} peaks at ${peak.toFixed(1)} W, under 2 % of the ${capacity} capacity: is the column in kW or kWh ` +
        `(then name its unit: pv_kw, pv_energy_kwh), or the capacity too large?`,
    );
  if (peak > 1.5 * capacityWatts)
    throw new DataError(
      `${what} reaches ${peak.toFixed(0)} W in an hour, 1.5 times the ${capacity} capacity: ` +
        `is --capacity in the wrong unit (3.5kW, 3500W), or the column in W under a name read as kW or kWh (pv_kw)?`,
    );
}

/**
 * Beyond this a daily centre is no array's doing (a wall facing west centres some two hours after
 * solar noon in summer): the coordinates, or the stamps' time zone, are not the data's, and every
 * hour scored as daytime would be another hour of the day.
 */
const MAX_CENTRE_OFFSET_MINUTES = 240;

/** `minutes` from solar noon as words: "7.1 h after". */
const fromNoon = (minutes: number) =>
  `${(Math.abs(minutes) / 60).toFixed(1)} h ${minutes >= 0 ? 'after' : 'before'}`;

function weatherFile(options: BenchOptions, notes: string[]) {
  if (!options.psm3) return null;
  const weather = readPsm3(options.psm3);
  notes.push(
    `weather ${options.psm3}: ${count(weather.rows)} rows every ${weather.intervalMinutes} min → ` +
      `${count(weather.ghi.size)} UTC hours (each the mean of straight lines between the samples)`,
  );
  const centroid = psm3ClearSkyCentroid(weather.ghiClear, options.longitude);
  if (Number.isFinite(centroid)) {
    if (Math.abs(60 * centroid) > MAX_CENTRE_OFFSET_MINUTES)
      throw new DataError(
        `${options.psm3}: its clear sky centres ${fromNoon(60 * centroid)} solar noon at longitude ` +
          `${options.longitude}°: the file is for another place, or its stamps' offset is wrong`,
      );
    notes.push(
      `check: PSM3 clear-sky GHI centroid − solar noon = ${(centroid * 60).toFixed(1)} min (0: stamps are instants)`,
    );
  }
  return weather;
}

/** What the plain reader did to a file (the plain layout's, or PVDAQ's read as one). */
function plainNotes(csv: PlainCsvSeries, options: BenchOptions, notes: string[]): void {
  const unitOf = (role: string) => {
    const unit = csv.units[role as keyof typeof csv.units];
    if (!unit || unit === 'W') return '';
    return unit === 'kW' ? ': kW → W' : `: ${unit} per ${csv.intervalMinutes} min → W`;
  };
  const columns = Object.entries(csv.columns)
    .map(([role, name]) => `${role} = ${name}${unitOf(role)}`)
    .join(', ');
  notes.push(
    `${count(csv.rows)} rows every ${csv.intervalMinutes} min (${columns}); runs of missing rows: ` +
      `${csv.gaps}${csv.gaps > 0 ? `, the longest ${csv.longestGapRows} rows` : ''}`,
  );
  if (csv.unread.length > 0)
    notes.push(
      `columns not read: ${csv.unread.join(', ')}${options.layout === 'pvdaq' ? '' : ' (bench/FORECAST.md lists the names read)'}`,
    );
  if (csv.skippedWallTimes > 0)
    notes.push(
      `${count(csv.skippedWallTimes)} rows dropped: wall times that do not exist in ${options.timeZone} (the hour skipped when clocks go forward)`,
    );
  const offsets = [...csv.offsets].sort((a, b) => b[1] - a[1]);
  if (offsets.length > 0)
    notes.push(
      `UTC offsets in the stamps: ${offsets.map(([offset, rows]) => `${offset >= 0 ? '+' : '−'}${Math.abs(offset / 60)} h × ${count(rows)}`).join(', ')}`,
    );
  if (options.layout === 'pvdaq')
    notes.push(
      csv.offsets.size === 0
        ? `the stamps' offset dropped and their wall times read in ${options.timeZone}`
        : `the stamps read at their offsets`,
    );
  const { coverage } = csv;
  const emptyRows =
    csv.emptyRows > 0
      ? `; ${count(csv.emptyRows)} empty ${csv.emptyRows === 1 ? 'row' : 'rows'} skipped`
      : '';
  notes.push(
    `${csv.pv ? 'PV' : 'load'}: ${count(coverage.hours)} hours from ${utcHour(coverage.first)} to ${utcHour(coverage.last)} ` +
      `(${((100 * coverage.hours) / coverage.spanHours).toFixed(1)} % present); ` +
      `values below 0 set to 0: ${count(csv.clipped.pv)} PV, ${count(csv.clipped.load)} load, ${count(csv.clipped.ghi)} GHI` +
      emptyRows,
  );
}

/**
 * For the plain layout: the PV's jump at each clock change of the zone its days are read in, and
 * a warning when it is about an hour (stamps on standard time all year read in the zone's name).
 * The public layouts choose their clock by the same measure, and print it then.
 */
function checkClockChanges(solar: HourlySeries, longitude: number, timeZone: string, notes: string[]): void {
  const { meanJump, line } = clockChangeJumps(solar, longitude, timeZone, 'as read');
  if (Number.isFinite(meanJump)) notes.push(`check: ${line}`);
  if (!(meanJump > 0.5)) return;
  const year = new Date([...solar.keys()][0]).getUTCFullYear();
  const standard = Math.min(...[0, 6].map((month) => zoneOffsetMs(Date.UTC(year, month, 1), timeZone)));
  notes.push(
    `check: the PV jumps about an hour where ${timeZone} changes its clock: do the stamps follow it? ` +
      `Stamps on standard time all year want its fixed offset, --time-zone ${fixedOffsetZone(standard / 60_000)}`,
  );
}

/** The plain layout (and the shipped sample). */
function readPlainSite(options: BenchOptions, notes: string[]): SiteSeries {
  const csv = readPlainCsv(options.path, { timeZone: options.timeZone, stamps: options.stamps });
  plainNotes(csv, options, notes);
  if (csv.ghi && options.psm3)
    throw new UsageError(
      `${options.path} has a GHI column (${csv.columns.ghi}) and --psm3 gives another: keep one`,
    );
  const timeZone = options.timeZone ?? csv.commonOffsetZone!;
  if (csv.pv) checkClockChanges(csv.pv, options.longitude, timeZone, notes);
  return {
    solar: csv.pv,
    load: csv.load,
    ghi: csv.ghi,
    temperature: csv.temperature,
    timeZone,
    timeZoneNote: options.timeZone
      ? null
      : `the offset most stamps carry (pass --time-zone for days that follow summer time)`,
    notes,
  };
}

/** A PVDAQ export, its clock chosen from its PV unless `--pvdaq-clock` says. */
function readPvdaqSite(options: BenchOptions, notes: string[]): SiteSeries {
  const timeZone = options.timeZone!;
  const lines = fileLines(options.path);
  const read = (clock: PvdaqClock) =>
    parsePvdaq(lines, { timeZone, clock, column: options.pvdaqColumn, stamps: options.stamps }, options.path);
  let pv: PlainCsvSeries;
  if (options.pvdaqClock !== null) pv = read(options.pvdaqClock);
  else {
    const readings = { local: read('local'), offset: read('offset') };
    const choice = choosePvdaqClock(
      { local: readings.local.pv!, offset: readings.offset.pv! },
      timeZone,
      options.longitude,
    );
    for (const line of choice.lines) notes.push(`check: ${line}`);
    pv = readings[choice.clock];
  }
  plainNotes(pv, options, notes);
  return {
    solar: pv.pv,
    load: null,
    ghi: null,
    temperature: null,
    timeZone,
    timeZoneNote: null,
    notes,
  };
}

/** A building of an OPSD household file, the CEST shift chosen from its PV unless `--cest-shift` says. */
function readOpsdSite(options: BenchOptions, notes: string[]): SiteSeries {
  const timeZone = options.timeZone!;
  const file = readOpsd(options.path, options.opsdPrefix);
  const meters = [
    file.meters.import,
    file.meters.export,
    ...file.meters.pv,
    file.meters.charge,
    file.meters.discharge,
  ];
  notes.push(
    `${count(file.rows)} rows every ${file.step / 60_000} min; meters: ${meters.filter(Boolean).join(', ')}`,
  );
  if (file.noLoad) notes.push(`no load: ${file.noLoad}`);
  notes.push(...file.notes);
  if (file.noLoad && file.meters.pv.length === 0)
    throw new DataError(`${options.path}: nothing to score: ${file.noLoad}, and it has no PV`);
  const readings = { without: householdSeries(file, false), with: householdSeries(file, true) };
  const cest = chooseCestShift(
    { without: readings.without.pv, with: readings.with.pv },
    options.longitude,
    timeZone,
    options.cestShift,
  );
  for (const line of cest.lines) notes.push(`check: ${line}`);
  const household = readings[cest.shift ? 'with' : 'without'];
  notes.push(
    `${count(household.shiftedRows)} rows moved back an hour (CEST); ` +
      `${household.negativeLoadHours} negative load hours → 0`,
  );
  const rule = 'an hour counts when the intervals between meter readings cover 75 % of it';
  if (household.pv) checkCoverage(household.pv, 'PV', rule);
  if (household.load) checkCoverage(household.load, 'load', rule);
  return {
    solar: household.pv,
    load: household.load,
    ghi: null,
    temperature: null,
    timeZone,
    timeZoneNote: null,
    notes,
  };
}

export function readSite(options: BenchOptions): SiteSeries {
  const notes: string[] = [];
  const read =
    options.layout === 'pvdaq'
      ? readPvdaqSite(options, notes)
      : options.layout === 'opsd'
        ? readOpsdSite(options, notes)
        : readPlainSite(options, notes);
  // --psm3 gives the weather a layout's file does not have (a plain file's own GHI may not meet it).
  const weather = weatherFile(options, notes);
  const series = {
    ...read,
    ghi: read.ghi ?? weather?.ghi ?? null,
    temperature: read.temperature ?? weather?.temperature ?? null,
  };

  if (series.solar) {
    if (options.capacityWatts === null)
      throw new UsageError(
        `--capacity is required: ${options.path} has PV, and solar errors are divided by the installed power (3.5kW, 3500W)`,
      );
    checkUnits(series.solar, options.capacityWatts, 'PV');
    const centre = pvCentreOffsetMinutes(series.solar, options.longitude);
    if (centre !== null && Math.abs(centre) > MAX_CENTRE_OFFSET_MINUTES)
      throw new DataError(
        `PV's daily centre falls ${fromNoon(centre)} solar noon at longitude ${options.longitude}°: the ` +
          `coordinates or the stamps' time zone are not the data's (a west longitude is written --lon=-105.18)`,
      );
    if (centre !== null)
      notes.push(
        `check: PV's daily centre − solar noon = ${Math.round(centre) + 0} min (tens of minutes: the array faces east ` +
          `or west; an hour or more: look at the stamps' time zone)`,
      );
    if (series.ghi)
      for (const line of pvWeatherCorrelation(series.solar, series.ghi)) notes.push(`check: ${line}`);
  }
  return series;
}
