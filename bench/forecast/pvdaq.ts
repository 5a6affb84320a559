import { DataError } from './data-error';
import { header, parseLines, TextLines } from './data-files';
import { parsePlainCsv, PlainCsvSeries } from './plain-csv';

/**
 * NREL PVDAQ `measured_on,<power>...`: every stamp carries the site's standard-time offset
 * (`-07:00`), but in system 50's file the clock follows summer time, so the offset is dropped and
 * the wall time read in the site's zone (`clock: 'local'`); a file whose offsets are right is read
 * as written (`'offset'`; `choosePvdaqClock` in alignment.ts tells the two apart). Values are
 * interval means in W at any regular interval (15 minutes in the pvanalytics extracts, 1 minute
 * in others), labelled by the start of their interval (pandas' default) or by its end. Read as the
 * plain layout is, with these two columns named.
 */

export interface PvdaqOptions {
  timeZone: string;
  /** `local`: the offset dropped and the wall time read in `timeZone`; `offset`: the stamps as written. */
  clock: 'local' | 'offset';
  /** The power column; null: the only value column, or the only `ac_power…` one. */
  column: string | null;
  stamps: 'start' | 'end';
}

/** The option for a file of another layout given as PVDAQ, told by its first row; null when none tells. */
function otherLayout(names: string[]): string | null {
  if (names.includes('utc_timestamp') && names.some((name) => name.endsWith('_grid_import')))
    return 'an Open Power System Data household file: give it as --opsd';
  if (names[0] === 'Source' && names.includes('Time Zone'))
    return 'NSRDB weather: give it as --psm3 beside the PV file';
  if (names.includes('ghi') && names.includes('temp_air'))
    return 'PSM3 weather: give it as --psm3 beside the PV file';
  return null;
}

/** The column holding AC power: the one named, else the only candidate; `ac_power_kw` is read in kW. */
export function pvdaqPowerColumn(names: string[], wanted: string | null, source: string): string {
  const other = otherLayout(names);
  if (other !== null) throw new DataError(`${source}: this is ${other}, not a PVDAQ export`);
  if (wanted !== null) {
    if (!names.includes(wanted))
      throw new DataError(`${source}: no column ${wanted} (have ${names.join(', ')}) for --pvdaq-column`);
    return wanted;
  }
  const values = names.filter((name) => name !== 'measured_on' && name !== '');
  const acPower = values.filter((name) => /^ac_power/i.test(name));
  if (values.length === 1) return values[0];
  if (acPower.length === 1) return acPower[0];
  throw new DataError(
    `${source}: ${values.length === 0 ? 'no value column' : `several value columns (${values.join(', ')})`}; ` +
      `name the AC power column with --pvdaq-column`,
  );
}

export function parsePvdaq(input: TextLines, options: PvdaqOptions, source = 'input'): PlainCsvSeries {
  // The header line only: the plain parser reads the file again, from its start.
  const power = pvdaqPowerColumn(parseLines(input, header), options.column, source);
  return parsePlainCsv(
    input,
    {
      timeZone: options.timeZone,
      stamps: options.stamps,
      columns: { time: 'measured_on', pv: power },
      wallClock: options.clock === 'local',
    },
    source,
  );
}
