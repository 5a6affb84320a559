import {
  CODE_FIELDS,
  emptyTelemetryValues,
  NUMERIC_FIELDS,
  TEXT_FIELDS,
  TIMESTAMP_ALIASES,
} from './telemetry-fields';

/** The documented alias map, row by row, with `gridPower` after `gridFrequency`. */
const SPEC_ALIASES: [string, string[]][] = [
  ['stateOfCharge', ['soc', 'state_of_charge', 'batteryLevel', 'battery_level', 'batteryPercent']],
  ['stateOfHealth', ['soh', 'state_of_health', 'batteryHealth']],
  ['batteryVoltage', ['battery_voltage', 'battVoltage', 'batt_voltage']],
  ['batteryCurrent', ['battery_current', 'battCurrent', 'batt_current']],
  ['batteryTemperature', ['battery_temperature', 'battTemp', 'batt_temp']],
  ['batteryCapacity', ['battery_capacity', 'battCapacity']],
  ['remainingCapacity', ['remaining_capacity', 'remainCapacity']],
  ['solarVoltage', ['pv_voltage', 'pvVoltage', 'solar_voltage', 'panelVoltage']],
  ['solarCurrent', ['pv_current', 'pvCurrent', 'solar_current', 'panelCurrent']],
  ['solarPower', ['pvPower', 'pv_power', 'solar_power', 'panelPower', 'pvWatts']],
  ['outputVoltage', ['output_voltage', 'acOutputVoltage', 'ac_output_voltage']],
  ['outputCurrent', ['output_current', 'acOutputCurrent']],
  ['outputFrequency', ['output_frequency', 'acFrequency']],
  ['loadPower', ['load_power', 'acOutputPower', 'ac_output_power', 'consumption']],
  ['loadPercentage', ['load_percentage', 'loadPercent', 'load_percent']],
  ['apparentPower', ['apparent_power', 'va']],
  ['gridVoltage', ['grid_voltage', 'mainsVoltage', 'utilityVoltage']],
  ['gridCurrent', ['grid_current', 'mainsCurrent']],
  ['gridFrequency', ['grid_frequency', 'mainsFrequency']],
  ['gridPower', ['grid_power', 'gridWatts']],
  ['totalEnergyProduced', ['total_energy_produced', 'totalGeneration']],
  ['totalEnergyConsumed', ['total_energy_consumed', 'totalConsumption']],
  ['dailyEnergyProduced', ['daily_energy_produced', 'todayGeneration', 'dailyGeneration']],
  ['dailyEnergyConsumed', ['daily_energy_consumed', 'todayConsumption', 'dailyConsumption']],
];

/** The first 8 documented value ranges. */
const SPEC_RANGES: [string, number, number][] = [
  ['stateOfCharge', 0, 100],
  ['batteryVoltage', 0, 100],
  ['batteryCurrent', -200, 200],
  ['batteryTemperature', -40, 80],
  ['solarPower', 0, 100000],
  ['loadPower', 0, 100000],
  ['gridVoltage', 0, 500],
  ['totalEnergyProduced', 0, 10000000],
];

/** The other 16 documented value ranges. */
const DECIDED_RANGES: [string, number, number][] = [
  ['stateOfHealth', 0, 100],
  ['batteryCapacity', 0, 10000],
  ['remainingCapacity', 0, 10000],
  ['solarVoltage', 0, 1500],
  ['solarCurrent', -1, 200],
  ['outputVoltage', 0, 500],
  ['outputCurrent', 0, 500],
  ['outputFrequency', 0, 70],
  ['loadPercentage', 0, 200],
  ['apparentPower', 0, 100000],
  ['gridCurrent', -500, 500],
  ['gridFrequency', 0, 70],
  ['totalEnergyConsumed', 0, 10000000],
  ['dailyEnergyProduced', 0, 1000],
  ['dailyEnergyConsumed', 0, 1000],
  ['gridPower', -100000, 100000],
];

const UNITS: Record<string, string> = {
  stateOfCharge: '%',
  stateOfHealth: '%',
  loadPercentage: '%',
  batteryVoltage: 'V',
  solarVoltage: 'V',
  outputVoltage: 'V',
  gridVoltage: 'V',
  batteryCurrent: 'A',
  solarCurrent: 'A',
  outputCurrent: 'A',
  gridCurrent: 'A',
  batteryTemperature: '°C',
  batteryCapacity: 'Ah',
  remainingCapacity: 'Ah',
  solarPower: 'W',
  loadPower: 'W',
  gridPower: 'W',
  apparentPower: 'VA',
  outputFrequency: 'Hz',
  gridFrequency: 'Hz',
  totalEnergyProduced: 'kWh',
  totalEnergyConsumed: 'kWh',
  dailyEnergyProduced: 'kWh',
  dailyEnergyConsumed: 'kWh',
};

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

describe('the telemetry field table', () => {
  it('has the 24 numeric fields, in the alias table order, with exactly its aliases', () => {
    expect(NUMERIC_FIELDS).toHaveLength(24);
    expect(NUMERIC_FIELDS.map((field) => [field.name, field.aliases])).toEqual(SPEC_ALIASES);
  });

  it('covers 8 + 16 documented ranges, each field once', () => {
    const documented = [...SPEC_RANGES, ...DECIDED_RANGES];
    expect(documented).toHaveLength(24);
    expect(new Set(documented.map(([name]) => name)).size).toBe(24);
  });

  it.each([...SPEC_RANGES, ...DECIDED_RANGES])('gives %s the documented range %p..%p', (name, min, max) => {
    const field = NUMERIC_FIELDS.find((candidate) => candidate.name === name);
    expect(field && [field.min, field.max]).toEqual([min, max]);
  });

  it.each(NUMERIC_FIELDS.map((field) => [field.name, field.unit, field.column]))(
    'stores %s in %s as column %s',
    (name, unit, column) => {
      expect(unit).toBe(UNITS[name]);
      expect(column).toBe(snakeCase(name));
    },
  );

  it('describes every field', () => {
    const all = [...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS];
    expect(all.filter((field) => field.description.trim() === '')).toEqual([]);
  });

  it('has the text fields of the alias table and the documented code fields', () => {
    expect(TEXT_FIELDS.map((field) => [field.name, field.column, field.aliases])).toEqual([
      [
        'operatingMode',
        'operating_mode',
        ['mode', 'operating_mode', 'workMode', 'work_mode', 'inverterMode'],
      ],
      ['deviceStatus', 'device_status', ['device_status', 'status', 'inverterStatus']],
    ]);
    expect(CODE_FIELDS.map((field) => [field.name, field.column, field.aliases])).toEqual([
      ['faultCodes', 'fault_codes', ['fault_codes', 'faults', 'errorCodes']],
      ['warningCodes', 'warning_codes', ['warning_codes', 'warnings']],
    ]);
    expect(TIMESTAMP_ALIASES).toEqual(['timestamp', 'ts', 'time', 'dateTime', 'datetime']);
  });

  it('lists exactly the fields of TelemetryValues', () => {
    const tableNames = [...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS].map((field) => field.name);
    expect(tableNames.sort()).toEqual(Object.keys(emptyTelemetryValues()).sort());
  });

  it('has no property name claimed by two fields, even ignoring case', () => {
    const owners = new Map<string, Set<string>>();
    const groups = [
      ...[...NUMERIC_FIELDS, ...TEXT_FIELDS, ...CODE_FIELDS].map((field) => [
        field.name,
        [field.name, ...field.aliases],
      ]),
      ['timestamp', [...TIMESTAMP_ALIASES]],
    ] as [string, string[]][];
    for (const [field, names] of groups) {
      for (const name of names) {
        const lowerCased = name.toLowerCase();
        owners.set(lowerCased, (owners.get(lowerCased) ?? new Set()).add(field));
      }
    }
    expect([...owners].filter(([, fields]) => fields.size > 1)).toEqual([]);
  });
});
