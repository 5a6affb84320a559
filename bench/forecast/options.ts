import { parseArgs } from 'node:util';
import { describeRetrainingRule } from '../../libs/forecast/src/model/retraining';
import { TRAINING_DAYS } from '../../libs/forecast/src/model/train';
import { COLUMN_NAMES } from './plain-csv';
import { SAMPLE } from './sample';
import type { Retrain } from './replay';
import { isCalendarTime, isKnownTimeZone } from './time-zones';

/**
 * The command line of `npm run bench:forecast`: one table of options from which both the parser
 * and `--help` are made, so the help cannot miss an option or misstate a default. A mistake on
 * the command line is a `UsageError` (exit code 2) that names the option.
 */

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface OptionSpec {
  name: string;
  type: 'string' | 'boolean';
  /** Placeholder for the value in the help. */
  value?: string;
  /** Parser default (strings only). */
  default?: string;
  /** What the help says the default is, where it is not a plain value (or the option is required). */
  defaultText?: string;
  help: string;
}

interface OptionGroup {
  title: string;
  options: OptionSpec[];
}

const GROUPS: OptionGroup[] = [
  {
    title: `Input, one of (with none: the synthetic sample,\n  ${SAMPLE.relativePath}, 5 kW in Berlin)`,
    options: [
      {
        name: 'csv',
        type: 'string',
        value: 'FILE',
        defaultText: 'none',
        help: 'a plain CSV, laid out as below',
      },
      {
        name: 'pvdaq',
        type: 'string',
        value: 'FILE',
        defaultText: 'none',
        help: 'an NREL PVDAQ export: measured_on,<power column>, means in W every 1 to 60 minutes',
      },
      {
        name: 'opsd',
        type: 'string',
        value: 'FILE',
        defaultText: 'none',
        help: 'an Open Power System Data household file: cumulative kWh meters of a building, every 1 to 60 minutes',
      },
      {
        name: 'psm3',
        type: 'string',
        value: 'FILE',
        defaultText: 'none',
        help: 'NSRDB PSM3 weather for the site (GHI, air temperature), with an input that has no GHI',
      },
    ],
  },
  {
    title: 'Site',
    options: [
      {
        name: 'capacity',
        type: 'string',
        value: 'POWER',
        defaultText: 'required when there is PV',
        help: 'installed PV power with its unit, 3.5kW or 3500W: errors are divided by it',
      },
      {
        name: 'lat',
        type: 'string',
        value: 'DEG',
        defaultText: 'required',
        help: 'latitude, degrees north',
      },
      {
        name: 'lon',
        type: 'string',
        value: 'DEG',
        defaultText: 'required',
        help: 'longitude, degrees east (west is negative: --lon=-105.18)',
      },
      {
        name: 'time-zone',
        type: 'string',
        value: 'ZONE',
        defaultText:
          '--csv: the offset most stamps carry, and required when they carry none; --pvdaq: required; --opsd: Europe/Berlin',
        help: 'IANA zone of the site: stamps without an offset are read in it, and scored days run from its midnight',
      },
      {
        name: 'installed',
        type: 'string',
        value: 'TILT/AZIMUTH',
        defaultText: 'none: the orientation target is not checked',
        help: 'the array as installed, degrees (azimuth from north, 180 south), e.g. 45/158: the inferred orientation is checked against it',
      },
      {
        name: 'use-installed',
        type: 'boolean',
        defaultText: 'off: the model infers the orientation from the training days',
        help: 'give the model --installed as the source’s own orientation, as an owner who set it does: it is used as it is, and the orientation target is not checked',
      },
    ],
  },
  {
    title: 'Layout details',
    options: [
      {
        name: 'stamps',
        type: 'string',
        value: 'start|end',
        default: 'start',
        help: '--csv, --pvdaq: a timestamp marks the start or the end of its interval',
      },
      {
        name: 'pvdaq-column',
        type: 'string',
        value: 'NAME',
        defaultText: 'the only column beside measured_on, or the only ac_power… one',
        help: '--pvdaq: the AC power column',
      },
      {
        name: 'pvdaq-clock',
        type: 'string',
        value: 'auto|local|offset',
        default: 'auto',
        help: '--pvdaq: read the stamps as wall time in --time-zone, their offset dropped (local), as system 50 needs, or at their offset (offset); auto decides from the PV, whose daily centre must not jump an hour when the zone’s clock changes',
      },
      {
        name: 'opsd-prefix',
        type: 'string',
        value: 'PREFIX',
        default: 'DE_KN_residential4',
        help: '--opsd: the building’s column prefix',
      },
      {
        name: 'cest-shift',
        type: 'string',
        value: 'auto|on|off',
        default: 'auto',
        help: '--opsd: move the rows stamped during CEST an hour earlier (on), as the 2017 release needs, or not (off); auto decides from the PV, whose daily centre must not jump an hour when the zone’s clock changes',
      },
    ],
  },
  {
    title: 'Days (local dates, YYYY-MM-DD:YYYY-MM-DD, both included)',
    options: [
      {
        name: 'train',
        type: 'string',
        value: 'FROM:TO',
        defaultText: 'every day of the data before the scored ones',
        help: `days the model is trained on (at most the last ${TRAINING_DAYS}, as the product)`,
      },
      {
        name: 'score',
        type: 'string',
        value: 'FROM:TO',
        defaultText: 'the last third of the days of the data, at least 7',
        help: 'days forecast and scored, each from its midnight',
      },
      {
        name: 'retrain',
        type: 'string',
        value: 'none|monthly|product',
        default: 'product',
        help:
          'when to train again, on the days before: never; at the start of every scored month; or as the ' +
          `product’s scheduled job does (${describeRetrainingRule()})`,
      },
    ],
  },
  {
    title: 'Output',
    options: [
      {
        name: 'results',
        type: 'string',
        value: 'DIR',
        defaultText: 'bench/results/forecast-<date>-<time>',
        help: 'where the plots (SVG) and results.json are written',
      },
      {
        name: 'plot-week',
        type: 'string',
        value: 'DATE',
        defaultText: 'the scored week whose nRMSE is the median of all weeks',
        help: 'first local day of the week plotted',
      },
      {
        name: 'time-training',
        type: 'boolean',
        defaultText: 'off',
        help: `also time a training on the product's ${TRAINING_DAYS} days of the data, and its memory`,
      },
      { name: 'help', type: 'boolean', help: 'this text' },
    ],
  },
];

const SPECS = GROUPS.flatMap((group) => group.options);

const WIDTH = 100;
const INDENT = 26;

/** `left` padded to the indent, then `text` wrapped at word boundaries, continued under itself. */
function wrapped(left: string, text: string, indent = INDENT): string {
  const lines: string[] = [];
  // An option as wide as the indent or wider still gets a space before its text.
  let line = left.length >= indent ? `${left} ` : left.padEnd(indent);
  for (const word of text.split(' ')) {
    if (line.length + word.length > WIDTH && line.trim() !== left.trim()) {
      lines.push(line.trimEnd());
      line = ' '.repeat(indent);
    }
    line += `${word} `;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}

function optionLine(spec: OptionSpec): string {
  const fallback = spec.defaultText ?? spec.default;
  return wrapped(
    `  --${spec.name}${spec.value ? ` ${spec.value}` : ''}`,
    `${spec.help}${fallback !== undefined ? ` (default: ${fallback})` : ''}`,
  );
}

/** Where the plain layout's column descriptions start. */
const COLUMN_INDENT = 15;

const column = (label: string, role: keyof typeof COLUMN_NAMES, text: string) =>
  wrapped(`  ${label}`, `${text}; named ${COLUMN_NAMES[role].join(', ')}`, COLUMN_INDENT);

export const HELP = [
  'npm run bench:forecast -- [options]',
  '',
  'Day-ahead solar (and load) forecasts replayed day by day over measured data, scored against smart',
  'persistence and the physics-only baseline; prints the metrics and their definitions, writes plots.',
  '',
  ...GROUPS.flatMap((group) => [`${group.title}:`, ...group.options.map(optionLine), '']),
  'Plain CSV layout (--csv): a header row, then one row per interval, comma separated (or semicolons or',
  'tabs, and then decimal commas or points). Column names ignore case, spaces and punctuation (PV Power',
  '(W) is pv_power_w).',
  column(
    'timestamp',
    'time',
    'ISO 8601 with its UTC offset (2025-06-01T12:00:00+02:00, or Z), day-first with dots (01.06.2025 12:00), or Unix time in s or ms; without an offset, --time-zone is required',
  ),
  column('PV power', 'pv', 'W, optional if there is load'),
  column('load power', 'load', 'W, optional if there is PV'),
  wrapped(
    '',
    'PV or load in kW, or as energy per interval in Wh or kWh: the unit in place of _w (pv_kw, pv_wh, pv_energy_kwh, consumption_kwh)',
    COLUMN_INDENT,
  ),
  column('GHI', 'ghi', 'W/m², optional'),
  column('temperature', 'temperature', '°C, optional'),
  '  Any regular interval from 1 min to 1 h (missing rows are fine); a value is the mean over its',
  '  interval. Resampled to hourly means; an hour counts when its rows cover 75 % of it. At least',
  '  30 days, half of their hours present.',
  '',
  'More: bench/FORECAST.md',
].join('\n');

export type Layout = 'csv' | 'pvdaq' | 'opsd' | 'sample';

export interface BenchOptions {
  layout: Layout;
  path: string;
  psm3: string | null;
  /** W; null when the input has no PV to normalise. */
  capacityWatts: number | null;
  latitude: number;
  longitude: number;
  /** Null: for --csv, the stamps' common offset. */
  timeZone: string | null;
  stamps: 'start' | 'end';
  /** Null: the file's only power column. */
  pvdaqColumn: string | null;
  /** Null: decided from the PV (auto). */
  pvdaqClock: 'local' | 'offset' | null;
  opsdPrefix: string;
  /** Null: decided from the PV (auto). */
  cestShift: boolean | null;
  train: [string, string] | null;
  score: [string, string] | null;
  retrain: Retrain;
  /** Null: a new directory under bench/results. */
  results: string | null;
  plotWeek: string | null;
  timeTraining: boolean;
  /** The array as installed, when given: the orientation target is checked against it. */
  installed: { tilt: number; azimuth: number } | null;
  /** The model is given `installed` as the source's orientation instead of inferring one. */
  useInstalled: boolean;
}

export type ParsedCommand = { help: true } | { help: false; options: BenchOptions };

/** `3.5kW`, `3.5 kWp`, `3500W` → W. */
export function parseCapacity(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(k?)wp?$/i.exec(text.trim());
  if (!match) {
    const bare = Number(text);
    throw new UsageError(
      Number.isFinite(bare)
        ? `--capacity needs its unit: ${bare}kW or ${bare}W`
        : `--capacity wants a power such as 3.5kW or 3500W, got ${text}`,
    );
  }
  const watts = Number(match[1]) * (match[2] ? 1000 : 1);
  if (!(watts > 0)) throw new UsageError(`--capacity must be above 0, got ${text}`);
  return watts;
}

function coordinate(text: string | undefined, name: string, limit: number): number {
  if (text === undefined) throw new UsageError(`--${name} is required with an input file`);
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || Math.abs(value) > limit)
    throw new UsageError(`--${name} wants degrees between −${limit} and ${limit}, got ${text}`);
  return value;
}

/** Whether `date` (YYYY-MM-DD) is a day of the calendar: not 2025-02-30, not month 13. */
function isCalendarDate(date: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && isCalendarTime([...date.split('-').map(Number), 0, 0]);
}

function dateRange(text: string | undefined, name: string): [string, string] | null {
  if (text === undefined) return null;
  const match = /^(\d{4}-\d{2}-\d{2}):(\d{4}-\d{2}-\d{2})$/.exec(text);
  if (!match || !isCalendarDate(match[1]) || !isCalendarDate(match[2]))
    throw new UsageError(`--${name} wants YYYY-MM-DD:YYYY-MM-DD, got ${text}`);
  if (match[1] > match[2]) throw new UsageError(`--${name} ends before it starts: ${text}`);
  return [match[1], match[2]];
}

function orientation(text: string | undefined): { tilt: number; azimuth: number } | null {
  if (text === undefined) return null;
  const match = /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  const tilt = Number(match?.[1]);
  const azimuth = Number(match?.[2]);
  if (!match || tilt > 90 || azimuth >= 360)
    throw new UsageError(
      `--installed wants TILT/AZIMUTH in degrees (tilt 0–90, azimuth 0–359), e.g. 45/158, got ${text}`,
    );
  return { tilt, azimuth };
}

function oneOf<T extends string>(text: string, name: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text))
    throw new UsageError(`--${name} wants ${allowed.join(' or ')}, got ${text}`);
  return text as T;
}

function parseFlags(argv: string[]): Record<string, string | boolean | undefined> {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        SPECS.map((spec) => [
          spec.name,
          spec.default === undefined ? { type: spec.type } : { type: spec.type, default: spec.default },
        ]),
      ),
    });
    return values;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const quoted = /'([^']+)'/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option ${quoted}`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new UsageError(`unexpected argument ${quoted}: every input is given by an option (--csv FILE)`);
    throw new UsageError(message.split('\n').join(' '));
  }
}

/** Only with these layouts does an option mean anything. */
const LAYOUT_OPTIONS: Record<string, Layout[]> = {
  stamps: ['csv', 'pvdaq'],
  'pvdaq-column': ['pvdaq'],
  'pvdaq-clock': ['pvdaq'],
  'opsd-prefix': ['opsd'],
  'cest-shift': ['opsd'],
};

export function parseOptions(argv: string[]): ParsedCommand {
  const flags = parseFlags(argv);
  if (flags.help) return { help: true };
  const text = (name: string) => flags[name] as string | undefined;
  const given = (name: string) => argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));

  const inputs = (['csv', 'pvdaq', 'opsd'] as const).filter((name) => text(name) !== undefined);
  if (inputs.length > 1)
    throw new UsageError(
      `one input at a time: --${inputs.join(' and --')} given (run the bench once for each)`,
    );
  const layout: Layout = inputs.length > 0 ? inputs[0] : 'sample';
  for (const [name, layouts] of Object.entries(LAYOUT_OPTIONS))
    if (given(name) && !layouts.includes(layout))
      throw new UsageError(`--${name} applies to --${layouts.join(', --')} only`);

  let site: Pick<BenchOptions, 'capacityWatts' | 'latitude' | 'longitude' | 'timeZone'>;
  if (layout === 'sample') {
    const siteOptions = ['capacity', 'lat', 'lon', 'time-zone', 'psm3'].filter(given);
    if (siteOptions.length > 0)
      throw new UsageError(
        `--${siteOptions.join(', --')} describe an input file: give one (--csv FILE), or none for the sample`,
      );
    site = { ...SAMPLE.site };
  } else {
    const zone = text('time-zone') ?? (layout === 'opsd' ? 'Europe/Berlin' : null);
    if (zone !== null && !isKnownTimeZone(zone))
      throw new UsageError(`--time-zone: unknown time zone ${zone} (an IANA name such as Europe/Berlin)`);
    if (layout === 'pvdaq' && zone === null)
      throw new UsageError(
        '--pvdaq needs --time-zone: PVDAQ stamps carry a fixed offset while the clock follows summer time ' +
          '(America/Denver for the Golden, Colorado systems)',
      );
    const capacity = text('capacity');
    if (capacity === undefined && layout === 'pvdaq')
      throw new UsageError('--capacity is required with --pvdaq (installed PV power, 3.5kW or 3500W)');
    site = {
      capacityWatts: capacity === undefined ? null : parseCapacity(capacity),
      latitude: coordinate(text('lat'), 'lat', 90),
      longitude: coordinate(text('lon'), 'lon', 180),
      timeZone: zone,
    };
  }
  const useInstalled = Boolean(flags['use-installed']);
  if (useInstalled && text('installed') === undefined)
    throw new UsageError(
      '--use-installed gives the model the orientation of --installed TILT/AZIMUTH: give it too',
    );
  const plotWeek = text('plot-week') ?? null;
  if (plotWeek !== null && !isCalendarDate(plotWeek))
    throw new UsageError(`--plot-week wants a date, YYYY-MM-DD, got ${plotWeek}`);
  return {
    help: false,
    options: {
      layout,
      path: layout === 'sample' ? SAMPLE.path : text(layout)!,
      psm3: text('psm3') ?? null,
      ...site,
      stamps: oneOf(text('stamps')!, 'stamps', ['start', 'end']),
      pvdaqColumn: text('pvdaq-column') ?? null,
      pvdaqClock: (() => {
        const clock = oneOf(text('pvdaq-clock')!, 'pvdaq-clock', ['auto', 'local', 'offset']);
        return clock === 'auto' ? null : clock;
      })(),
      opsdPrefix: text('opsd-prefix')!,
      cestShift: { auto: null, on: true, off: false }[
        oneOf(text('cest-shift')!, 'cest-shift', ['auto', 'on', 'off'])
      ],
      train: dateRange(text('train'), 'train'),
      score: dateRange(text('score'), 'score'),
      retrain: oneOf(text('retrain')!, 'retrain', ['none', 'monthly', 'product']),
      results: text('results') ?? null,
      plotWeek,
      timeTraining: Boolean(flags['time-training']),
      installed: orientation(text('installed')),
      useInstalled,
    },
  };
}

/** Every option name, for the specs. */
export const OPTION_NAMES = SPECS.map((spec) => spec.name);
