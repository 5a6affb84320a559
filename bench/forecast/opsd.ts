import { DataError } from './data-error';
import { column, fileLines, header, HourlySeries, mostCommonStep, parseLines, TextLines } from './data-files';

/**
 * Open Power System Data household data (CoSSMic, Konstanz): per building, cumulative kWh meters
 * named `<prefix>_grid_import` and, where the building has them, `<prefix>_grid_export`, PV
 * meters (`<prefix>_pv`, or several: `_pv_1`, `_pv_roof`, ...) and a battery's
 * `<prefix>_storage_charge` and `_storage_decharge`, read every 1, 15 or 60 minutes.
 *
 * - PV is the sum of the PV meters.
 * - Load is what the building used: Δimport − Δexport + ΔPV + Δdischarge − Δcharge. With PV or
 *   a battery but no export meter that balance is unknown, and there is no load.
 * - The energy between two readings is spread evenly over the time between them and summed per
 *   UTC hour; an hour counts when such intervals cover 3/4 of it. Readings further apart than two
 *   intervals leave a gap. Where stamps moved by the CEST shift (below) fall on each other, the
 *   energy is carried into the next interval.
 * - A meter's reading lower than its reading before is a reset (the meter replaced, its counter
 *   wrapped): OPSD meters only count up. The interval across it has no value for the series
 *   that meter is part of, and leaves a gap there. Small negative hours of load are not resets
 *   but timing between meters; they are clipped, and counted.
 * - In the 2017 release `utc_timestamp` follows summer time: the PV's daily centre steps an hour
 *   later when CEST starts and back when it ends. `cestShift` moves the rows whose
 *   `cet_cest_timestamp` says `+0200` an hour earlier; `chooseCestShift` (alignment.ts) decides
 *   from the PV whether a file needs it.
 */

const HOUR_MS = 3_600_000;
/** An hour counts when the intervals between readings cover this share of it. */
const MIN_HOUR_COVERAGE = 0.75;

export interface HouseholdMeters {
  /** Null for a building with PV meters only: its PV is scored, its load cannot be told. */
  import: string | null;
  export: string | null;
  pv: string[];
  charge: string | null;
  discharge: string | null;
}

export interface HouseholdFile {
  prefix: string;
  meters: HouseholdMeters;
  rows: number;
  /** Most common step between readings, ms. */
  step: number;
  /**
   * Per row: the labelled UTC instant, whether the local stamp is summer time, PV and load meter
   * sums (NaN where a meter is empty), and whether a meter of either sum was reset since the row before.
   */
  readings: { at: number; cest: boolean; pv: number; load: number; pvReset: boolean; loadReset: boolean }[];
  /** Why there is no load, when there is none. */
  noLoad: string | null;
  /** Resets per meter, only of meters that had any. */
  resets: Map<string, number>;
  /** What the reader did to the readings, a line each for the report. */
  notes: string[];
}

export interface HouseholdSeries {
  /** Mean PV power per UTC hour, W; null when the building has no PV meter. */
  pv: HourlySeries | null;
  /** Mean load per UTC hour, W, negatives (meter timing) clipped to 0; null when it cannot be told. */
  load: HourlySeries | null;
  /** Rows whose stamp was moved back an hour (CEST). */
  shiftedRows: number;
  negativeLoadHours: number;
}

const PV_METER = /^(.+)_pv(_.+)?$/;

/** The building's meters, by their names; an unknown prefix is an error naming the buildings there are. */
export function householdMeters(names: string[], prefix: string, source: string): HouseholdMeters {
  const name = (suffix: string) => (names.includes(`${prefix}_${suffix}`) ? `${prefix}_${suffix}` : null);
  const imported = name('grid_import');
  const pv = names.filter((each) => PV_METER.exec(each)?.[1] === prefix);
  if (imported === null && pv.length === 0) {
    const buildings = new Set(
      names.flatMap((each) => {
        const building = each.endsWith('_grid_import')
          ? each.slice(0, -'_grid_import'.length)
          : PV_METER.exec(each)?.[1];
        return building ? [building] : [];
      }),
    );
    throw new DataError(
      `${source}: no meter ${prefix}_grid_import nor ${prefix}_pv; the buildings with a grid or PV meter are ` +
        `${[...buildings].join(', ') || 'none'} (--opsd-prefix names one)`,
    );
  }
  return {
    import: imported,
    export: name('grid_export'),
    pv,
    charge: name('storage_charge'),
    discharge: name('storage_decharge'),
  };
}

export function parseOpsd(input: TextLines, prefix: string, source = 'input'): HouseholdFile {
  return parseLines(input, (first, rows) => parseReadings(first, rows, prefix, source));
}

function parseReadings(first: string, rows: Iterable<string>, prefix: string, source: string): HouseholdFile {
  const names = header(first);
  const utcIndex = column(names, 'utc_timestamp', source);
  const localIndex = column(names, 'cet_cest_timestamp', source);
  const meters = householdMeters(names, prefix, source);
  const index = (name: string | null) => (name === null ? -1 : names.indexOf(name));
  const importIndex = index(meters.import);
  const exportIndex = index(meters.export);
  const chargeIndex = index(meters.charge);
  const dischargeIndex = index(meters.discharge);
  const pvIndexes = meters.pv.map(index);
  const hasBattery = meters.charge !== null || meters.discharge !== null;
  const noLoad =
    meters.import === null
      ? `${prefix} has PV but no grid_import meter: what it used cannot be told, so only its PV is scored`
      : meters.export === null && (meters.pv.length > 0 || hasBattery)
        ? `${prefix} has ${meters.pv.length > 0 ? 'PV' : 'a battery'} but no grid_export meter: ` +
          `what it used cannot be told from the grid import${meters.pv.length > 0 ? ', so only its PV is scored' : ''}`
        : (meters.charge === null) !== (meters.discharge === null)
          ? `${prefix} has one of storage_charge and storage_decharge: the battery's balance is unknown`
          : null;

  // An empty cell leaves the sum NaN: that reading is missing for the series it belongs to.
  const reading = (cells: string[], column: number) =>
    column < 0 ? 0 : cells[column] === undefined || cells[column].trim() === '' ? NaN : Number(cells[column]);
  const readings: HouseholdFile['readings'] = [];
  const pvMeters = pvIndexes.map((column) => ({ column, inPv: true }));
  const otherMeters = [importIndex, exportIndex, chargeIndex, dischargeIndex]
    .filter((column) => column >= 0)
    .map((column) => ({ column, inPv: false }));
  const meterColumns = [...pvMeters, ...otherMeters];
  // A meter is compared with its own reading before, skipping its empty cells.
  const lastReading = new Map<number, number>();
  const resets = new Map<string, number>();
  let rowCount = 0;
  for (const row of rows) {
    if (row === '') continue;
    rowCount++;
    const cells = row.split(',');
    const at = Date.parse(cells[utcIndex]);
    if (!Number.isFinite(at)) throw new DataError(`${source}: bad time ${cells[utcIndex]}`);
    const pv = pvIndexes.reduce((sum, column) => sum + reading(cells, column), 0);
    const load =
      reading(cells, importIndex) -
      reading(cells, exportIndex) +
      pv +
      reading(cells, dischargeIndex) -
      reading(cells, chargeIndex);
    let pvReset = false;
    let loadReset = false;
    for (const { column, inPv } of meterColumns) {
      const value = reading(cells, column);
      if (!Number.isFinite(value)) continue;
      const before = lastReading.get(column);
      if (before !== undefined && value < before) {
        resets.set(names[column], (resets.get(names[column]) ?? 0) + 1);
        loadReset = true;
        if (inPv) pvReset = true;
      }
      lastReading.set(column, value);
    }
    readings.push({ at, cest: (cells[localIndex] ?? '').endsWith('+0200'), pv, load, pvReset, loadReset });
  }
  return {
    prefix,
    meters,
    rows: rowCount,
    step: mostCommonStep(readings.map((each) => each.at)) || HOUR_MS,
    readings,
    noLoad,
    resets,
    notes: [...resets].map(
      ([meter, times]) =>
        `${meter} reset ${times === 1 ? '1 time' : `${times} times`} (its reading fell): ` +
        `the interval${times === 1 ? ' across it' : 's across them'} left out`,
    ),
  };
}

/** A reading of a sum of cumulative kWh meters; `afterReset`: one of them was reset since the point before. */
interface MeterPoint {
  at: number;
  kwh: number;
  afterReset: boolean;
}

/** Mean power per UTC hour, W, from the readings of a cumulative kWh meter; and the hours below 0, clipped. */
function hourlyPower(points: MeterPoint[], step: number): { series: HourlySeries; negativeHours: number } {
  const slots = new Map<number, { kwh: number; covered: number }>();
  let carried = 0;
  for (let index = 1; index < points.length; index++) {
    const previous = points[index - 1];
    const current = points[index];
    const span = current.at - previous.at;
    const kwh = current.kwh - previous.kwh + carried;
    carried = 0;
    if (current.afterReset) continue;
    if (span <= 0) {
      carried = kwh;
      continue;
    }
    if (span > 2 * step) continue;
    for (let hour = Math.floor(previous.at / HOUR_MS) * HOUR_MS; hour < current.at; hour += HOUR_MS) {
      const overlap = Math.min(current.at, hour + HOUR_MS) - Math.max(previous.at, hour);
      if (overlap <= 0) continue;
      const slot = slots.get(hour) ?? { kwh: 0, covered: 0 };
      slot.kwh += (kwh * overlap) / span;
      slot.covered += overlap;
      slots.set(hour, slot);
    }
  }
  const series: HourlySeries = new Map();
  let negativeHours = 0;
  for (const [hour, { kwh, covered }] of [...slots].sort((a, b) => a[0] - b[0])) {
    if (covered < MIN_HOUR_COVERAGE * HOUR_MS - 1) continue;
    const watts = (kwh * 1000 * HOUR_MS) / covered;
    if (watts < 0) negativeHours++;
    series.set(hour, Math.max(0, watts));
  }
  return { series, negativeHours };
}

/** The building's hourly PV and load, with or without the CEST shift. */
export function householdSeries(file: HouseholdFile, cestShift: boolean): HouseholdSeries {
  let shiftedRows = 0;
  const pvPoints: MeterPoint[] = [];
  const loadPoints: MeterPoint[] = [];
  // A reset on a row whose sum is empty still breaks the interval up to the next full sum.
  let pvResetPending = false;
  let loadResetPending = false;
  for (const { at, cest, pv, load, pvReset, loadReset } of file.readings) {
    const moved = cestShift && cest ? at - HOUR_MS : at;
    if (moved !== at) shiftedRows++;
    pvResetPending ||= pvReset;
    loadResetPending ||= loadReset;
    if (Number.isFinite(pv)) {
      pvPoints.push({ at: moved, kwh: pv, afterReset: pvResetPending });
      pvResetPending = false;
    }
    if (Number.isFinite(load)) {
      loadPoints.push({ at: moved, kwh: load, afterReset: loadResetPending });
      loadResetPending = false;
    }
  }
  const load = file.noLoad === null ? hourlyPower(loadPoints, file.step) : null;
  return {
    pv: file.meters.pv.length > 0 ? hourlyPower(pvPoints, file.step).series : null,
    load: load?.series ?? null,
    shiftedRows,
    negativeLoadHours: load?.negativeHours ?? 0,
  };
}

export function readOpsd(path: string, prefix: string): HouseholdFile {
  return parseOpsd(fileLines(path), prefix, path);
}
