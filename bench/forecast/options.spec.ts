import { BenchOptions, HELP, OPTION_NAMES, parseCapacity, parseOptions, UsageError } from './options';
import { SAMPLE } from './sample';

const options = (...argv: string[]): BenchOptions => {
  const parsed = parseOptions(argv);
  if (parsed.help) throw new Error('expected options, got --help');
  return parsed.options;
};

const usageError = (...argv: string[]): string => {
  try {
    parseOptions(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};

const SITE = ['--lat', '52.5', '--lon', '13.4'];

describe('--help', () => {
  it('is recognised', () => {
    expect(parseOptions(['--help'])).toEqual({ help: true });
    expect(parseOptions(['--csv', 'x.csv', '--help'])).toEqual({ help: true });
  });

  it('lists every option, and the default of each option that has one', () => {
    /** An option's entry: its line and the indented lines continuing it, as one line. */
    const entry = (name: string) =>
      new RegExp(`^  --${name}\\b.*(\\n {26}.*)*`, 'm').exec(HELP)?.[0].replace(/\s+/g, ' ') ?? '';
    expect(OPTION_NAMES.length).toBeGreaterThan(15);
    for (const name of OPTION_NAMES.filter((option) => option !== 'help'))
      expect(entry(name)).toMatch(/\(default: [^)]+\)/);
    expect(entry('help')).toContain('this text');
    expect(entry('stamps')).toContain('(default: start)');
    expect(entry('pvdaq-column')).toContain('(default: the only column beside measured_on');
    expect(entry('cest-shift')).toContain('(default: auto)');
    expect(entry('retrain')).toContain('(default: product)');
    expect(entry('results')).toContain('(default: bench/results/forecast-');
    expect(HELP).toContain(SAMPLE.relativePath);
  });

  it('keeps a space between every option and its text, however wide the option', () => {
    const entryLines = HELP.split('\n').filter((line) => line.startsWith('  --'));
    expect(entryLines).toHaveLength(OPTION_NAMES.length);
    expect(HELP).toContain('--installed TILT/AZIMUTH the array as installed');
    // A value name (upper case) run into the first word of the text, as TILT/AZIMUTHthe was.
    for (const line of entryLines) expect(line).not.toMatch(/[A-Z]{3}[a-z]/);
  });

  it('describes the plain CSV layout and its column names', () => {
    for (const text of [
      'pv_power_w',
      'load_power_w',
      'ghi_w_m2',
      'air_temperature_c',
      'UTC offset',
      '1 min to 1 h',
    ])
      expect(HELP).toContain(text);
  });
});

describe('parseOptions', () => {
  it('runs the shipped sample when given no input', () => {
    const parsed = options();
    expect(parsed.layout).toBe('sample');
    expect(parsed.path).toBe(SAMPLE.path);
    expect(parsed).toMatchObject(SAMPLE.site);
    expect(parsed.train).toBeNull();
    expect(parsed.results).toBeNull();
  });

  it('takes a plain CSV with only its path, capacity and coordinates', () => {
    const parsed = options('--csv', 'site.csv', '--capacity', '3.5kW', '--lat', '39.74', '--lon=-105.18');
    expect(parsed).toMatchObject({
      layout: 'csv',
      path: 'site.csv',
      capacityWatts: 3500,
      latitude: 39.74,
      longitude: -105.18,
      timeZone: null,
      stamps: 'start',
      retrain: 'product',
    });
  });

  it('reads capacity in kW or W, and refuses a number without a unit', () => {
    expect(parseCapacity('3.5kW')).toBe(3500);
    expect(parseCapacity('4.2 kWp')).toBe(4200);
    expect(parseCapacity('3500W')).toBe(3500);
    expect(() => parseCapacity('3500')).toThrow('--capacity needs its unit: 3500kW or 3500W');
    expect(() => parseCapacity('lots')).toThrow(UsageError);
    expect(() => parseCapacity('0kW')).toThrow(UsageError);
  });

  it('says which option is unknown', () => {
    expect(usageError('--pv', 'x.csv')).toBe('unknown option --pv');
    expect(usageError('--frobnicate')).toBe('unknown option --frobnicate');
  });

  it('refuses positional arguments, naming the option to use', () => {
    expect(usageError('data.csv')).toMatch(/unexpected argument data.csv.*--csv FILE/);
  });

  it('wants coordinates with an input file, and the sample’s own without one', () => {
    expect(usageError('--csv', 'x.csv', '--lon', '13')).toBe('--lat is required with an input file');
    expect(usageError('--csv', 'x.csv', '--lat', '95', '--lon', '13')).toMatch(/--lat wants degrees/);
    expect(usageError('--lat', '50')).toMatch(/--lat describe an input file/);
  });

  it('takes one input at a time', () => {
    expect(usageError('--csv', 'a.csv', '--opsd', 'b.csv', ...SITE, '--capacity', '5kW')).toMatch(
      /one input at a time: --csv and --opsd/,
    );
  });

  it('wants a time zone and a capacity with PVDAQ, and knows the zone', () => {
    expect(usageError('--pvdaq', 'p.csv', ...SITE, '--capacity', '3.5kW')).toMatch(
      /--pvdaq needs --time-zone/,
    );
    expect(usageError('--pvdaq', 'p.csv', ...SITE, '--time-zone', 'America/Denver')).toMatch(
      /--capacity is required with --pvdaq/,
    );
    expect(usageError('--csv', 'x.csv', ...SITE, '--time-zone', 'Mars/Olympus')).toMatch(/unknown time zone/);
    expect(options('--opsd', 'h.csv', ...SITE, '--capacity', '10kW').timeZone).toBe('Europe/Berlin');
  });

  it('reads the PVDAQ column and the CEST shift from the file unless told', () => {
    const pvdaq = ['--pvdaq', 'p.csv', ...SITE, '--time-zone', 'America/Denver', '--capacity', '3.5kW'];
    expect(options(...pvdaq).pvdaqColumn).toBeNull();
    expect(options(...pvdaq, '--pvdaq-column', 'ac_power').pvdaqColumn).toBe('ac_power');
    expect(options(...pvdaq).pvdaqClock).toBeNull();
    expect(options(...pvdaq, '--pvdaq-clock', 'offset').pvdaqClock).toBe('offset');
    expect(usageError(...pvdaq, '--pvdaq-clock', 'utc')).toBe(
      '--pvdaq-clock wants auto or local or offset, got utc',
    );
    const opsd = ['--opsd', 'h.csv', ...SITE];
    // A building without PV needs no capacity: the run checks that once it has read the file.
    expect(options(...opsd)).toMatchObject({ capacityWatts: null, cestShift: null });
    expect(options(...opsd, '--cest-shift', 'on').cestShift).toBe(true);
    expect(options(...opsd, '--cest-shift', 'off').cestShift).toBe(false);
    expect(usageError(...opsd, '--cest-shift', 'yes')).toBe('--cest-shift wants auto or on or off, got yes');
  });

  it('refuses an option of another layout', () => {
    expect(usageError('--opsd', 'h.csv', '--stamps', 'end')).toBe('--stamps applies to --csv, --pvdaq only');
    expect(usageError('--csv', 'x.csv', '--cest-shift', 'on')).toBe('--cest-shift applies to --opsd only');
  });

  it('checks days and choices', () => {
    expect(options('--train', '2025-03-01:2025-05-31', '--score', '2025-06-01:2025-06-30').score).toEqual([
      '2025-06-01',
      '2025-06-30',
    ]);
    expect(usageError('--score', '2025-06-01')).toMatch(/--score wants YYYY-MM-DD:YYYY-MM-DD/);
    expect(usageError('--score', '2025-02-30:2025-03-01')).toMatch(/--score wants/);
    expect(usageError('--train', '2025-06-01:2025-05-01')).toMatch(/ends before it starts/);
    expect(usageError('--retrain', 'weekly')).toBe('--retrain wants none or monthly or product, got weekly');
    expect(usageError('--plot-week', 'June')).toMatch(/--plot-week wants a date/);
    // Months 00 and 13 are no dates either: a sentence, not a stack.
    expect(usageError('--score', '2025-13-01:2025-05-01')).toMatch(/--score wants/);
    expect(usageError('--train', '2025-00-10:2025-03-01')).toMatch(/--train wants/);
    expect(usageError('--plot-week', '2025-13-01')).toMatch(/--plot-week wants a date/);
  });

  it('gives the model the installed orientation only when asked, and only with one', () => {
    const csv = ['--csv', 'site.csv', '--capacity', '3.5kW', ...SITE];
    expect(options(...csv, '--installed', '45/158')).toMatchObject({
      installed: { tilt: 45, azimuth: 158 },
      useInstalled: false,
    });
    expect(options(...csv, '--installed', '45/158', '--use-installed').useInstalled).toBe(true);
    expect(usageError(...csv, '--use-installed')).toBe(
      '--use-installed gives the model the orientation of --installed TILT/AZIMUTH: give it too',
    );
  });
});
