/**
 * The one definition of every telemetry field: canonical name, storage column, accepted aliases,
 * unit and physical range. DTOs, storage, export columns and documentation read this table rather
 * than repeating it, so adding an alias or changing a range is a one-line change.
 *
 * It holds the alias map, the 24 ranges, `gridPower`, the code fields and the timestamp aliases.
 */

export type NumericField =
  | 'stateOfCharge'
  | 'stateOfHealth'
  | 'batteryVoltage'
  | 'batteryCurrent'
  | 'batteryTemperature'
  | 'batteryCapacity'
  | 'remainingCapacity'
  | 'solarVoltage'
  | 'solarCurrent'
  | 'solarPower'
  | 'outputVoltage'
  | 'outputCurrent'
  | 'outputFrequency'
  | 'loadPower'
  | 'loadPercentage'
  | 'apparentPower'
  | 'gridVoltage'
  | 'gridCurrent'
  | 'gridFrequency'
  | 'gridPower'
  | 'totalEnergyProduced'
  | 'totalEnergyConsumed'
  | 'dailyEnergyProduced'
  | 'dailyEnergyConsumed';

export type TextField = 'operatingMode' | 'deviceStatus';
export type CodeField = 'faultCodes' | 'warningCodes';

export interface NumericFieldDefinition {
  /** Canonical camelCase name, as in API bodies. */
  name: NumericField;
  /** snake_case column name in storage and exports. */
  column: string;
  /** Other property names devices use for this field, matched case-insensitively. */
  aliases: readonly string[];
  unit: string;
  /** Inclusive physical range; a value outside it is stored as null. */
  min: number;
  max: number;
  description: string;
}

export interface TextFieldDefinition {
  name: TextField;
  column: string;
  aliases: readonly string[];
  description: string;
}

export interface CodeFieldDefinition {
  name: CodeField;
  column: string;
  aliases: readonly string[];
  description: string;
}

/** In alias-table order, with `gridPower` after `gridFrequency`. */
export const NUMERIC_FIELDS: readonly NumericFieldDefinition[] = [
  {
    name: 'stateOfCharge',
    column: 'state_of_charge',
    aliases: ['soc', 'state_of_charge', 'batteryLevel', 'battery_level', 'batteryPercent'],
    unit: '%',
    min: 0,
    max: 100,
    description: 'Battery state of charge',
  },
  {
    name: 'stateOfHealth',
    column: 'state_of_health',
    aliases: ['soh', 'state_of_health', 'batteryHealth'],
    unit: '%',
    min: 0,
    max: 100,
    description: 'Battery state of health',
  },
  {
    name: 'batteryVoltage',
    column: 'battery_voltage',
    aliases: ['battery_voltage', 'battVoltage', 'batt_voltage'],
    unit: 'V',
    min: 0,
    max: 100,
    description: 'Battery voltage',
  },
  {
    name: 'batteryCurrent',
    column: 'battery_current',
    aliases: ['battery_current', 'battCurrent', 'batt_current'],
    unit: 'A',
    min: -200,
    max: 200,
    description: 'Battery current',
  },
  {
    name: 'batteryTemperature',
    column: 'battery_temperature',
    aliases: ['battery_temperature', 'battTemp', 'batt_temp'],
    unit: '°C',
    min: -40,
    max: 80,
    description: 'Battery temperature',
  },
  {
    name: 'batteryCapacity',
    column: 'battery_capacity',
    aliases: ['battery_capacity', 'battCapacity'],
    unit: 'Ah',
    min: 0,
    max: 10000,
    description: 'Battery nominal capacity',
  },
  {
    name: 'remainingCapacity',
    column: 'remaining_capacity',
    aliases: ['remaining_capacity', 'remainCapacity'],
    unit: 'Ah',
    min: 0,
    max: 10000,
    description: 'Battery remaining capacity',
  },
  {
    name: 'solarVoltage',
    column: 'solar_voltage',
    aliases: ['pv_voltage', 'pvVoltage', 'solar_voltage', 'panelVoltage'],
    unit: 'V',
    min: 0,
    max: 1500,
    description: 'PV array voltage',
  },
  {
    name: 'solarCurrent',
    column: 'solar_current',
    aliases: ['pv_current', 'pvCurrent', 'solar_current', 'panelCurrent'],
    unit: 'A',
    min: -1,
    max: 200,
    description: 'PV array current',
  },
  {
    name: 'solarPower',
    column: 'solar_power',
    aliases: ['pvPower', 'pv_power', 'solar_power', 'panelPower', 'pvWatts'],
    unit: 'W',
    min: 0,
    max: 100000,
    description: 'PV power',
  },
  {
    name: 'outputVoltage',
    column: 'output_voltage',
    aliases: ['output_voltage', 'acOutputVoltage', 'ac_output_voltage'],
    unit: 'V',
    min: 0,
    max: 500,
    description: 'Inverter AC output voltage',
  },
  {
    name: 'outputCurrent',
    column: 'output_current',
    aliases: ['output_current', 'acOutputCurrent'],
    unit: 'A',
    min: 0,
    max: 500,
    description: 'Inverter AC output current',
  },
  {
    name: 'outputFrequency',
    column: 'output_frequency',
    aliases: ['output_frequency', 'acFrequency'],
    unit: 'Hz',
    min: 0,
    max: 70,
    description: 'Inverter AC output frequency',
  },
  {
    name: 'loadPower',
    column: 'load_power',
    aliases: ['load_power', 'acOutputPower', 'ac_output_power', 'consumption'],
    unit: 'W',
    min: 0,
    max: 100000,
    description: 'Load power',
  },
  {
    name: 'loadPercentage',
    column: 'load_percentage',
    aliases: ['load_percentage', 'loadPercent', 'load_percent'],
    unit: '%',
    min: 0,
    max: 200,
    description: 'Load as a share of the inverter rating',
  },
  {
    name: 'apparentPower',
    column: 'apparent_power',
    aliases: ['apparent_power', 'va'],
    unit: 'VA',
    min: 0,
    max: 100000,
    description: 'Apparent output power',
  },
  {
    name: 'gridVoltage',
    column: 'grid_voltage',
    aliases: ['grid_voltage', 'mainsVoltage', 'utilityVoltage'],
    unit: 'V',
    min: 0,
    max: 500,
    description: 'Grid voltage',
  },
  {
    name: 'gridCurrent',
    column: 'grid_current',
    aliases: ['grid_current', 'mainsCurrent'],
    unit: 'A',
    min: -500,
    max: 500,
    description: 'Grid current',
  },
  {
    name: 'gridFrequency',
    column: 'grid_frequency',
    aliases: ['grid_frequency', 'mainsFrequency'],
    unit: 'Hz',
    min: 0,
    max: 70,
    description: 'Grid frequency',
  },
  {
    name: 'gridPower',
    column: 'grid_power',
    aliases: ['grid_power', 'gridWatts'],
    unit: 'W',
    min: -100000,
    max: 100000,
    description: 'Grid power (positive = import, negative = export)',
  },
  {
    name: 'totalEnergyProduced',
    column: 'total_energy_produced',
    aliases: ['total_energy_produced', 'totalGeneration'],
    unit: 'kWh',
    min: 0,
    max: 10000000,
    description: 'Energy produced since installation (cumulative)',
  },
  {
    name: 'totalEnergyConsumed',
    column: 'total_energy_consumed',
    aliases: ['total_energy_consumed', 'totalConsumption'],
    unit: 'kWh',
    min: 0,
    max: 10000000,
    description: 'Energy consumed since installation (cumulative)',
  },
  {
    name: 'dailyEnergyProduced',
    column: 'daily_energy_produced',
    aliases: ['daily_energy_produced', 'todayGeneration', 'dailyGeneration'],
    unit: 'kWh',
    min: 0,
    max: 1000,
    description: 'Energy produced today',
  },
  {
    name: 'dailyEnergyConsumed',
    column: 'daily_energy_consumed',
    aliases: ['daily_energy_consumed', 'todayConsumption', 'dailyConsumption'],
    unit: 'kWh',
    min: 0,
    max: 1000,
    description: 'Energy consumed today',
  },
];

export const TEXT_FIELDS: readonly TextFieldDefinition[] = [
  {
    name: 'operatingMode',
    column: 'operating_mode',
    aliases: ['mode', 'operating_mode', 'workMode', 'work_mode', 'inverterMode'],
    description: 'Inverter operating mode, as the device names it',
  },
  {
    name: 'deviceStatus',
    column: 'device_status',
    aliases: ['device_status', 'status', 'inverterStatus'],
    description: 'Device status, as the device names it',
  },
];

export const CODE_FIELDS: readonly CodeFieldDefinition[] = [
  {
    name: 'faultCodes',
    column: 'fault_codes',
    aliases: ['fault_codes', 'faults', 'errorCodes'],
    description: 'Active fault codes ([] = the device reports none)',
  },
  {
    name: 'warningCodes',
    column: 'warning_codes',
    aliases: ['warning_codes', 'warnings'],
    description: 'Active warning codes ([] = the device reports none)',
  },
];

/** Property names of the device's timestamp, canonical first; matched case-insensitively. */
export const TIMESTAMP_ALIASES = ['timestamp', 'ts', 'time', 'dateTime', 'datetime'] as const;

/** Longest operating mode, device status or single code kept; longer ones are cut. */
export const MAX_TEXT_LENGTH = 100;
/** Most fault or warning codes kept per message; the rest are dropped. */
export const MAX_CODES = 100;

export type TelemetryValues = { [K in NumericField]: number | null } & {
  operatingMode: string | null;
  deviceStatus: string | null;
  faultCodes: string[] | null;
  warningCodes: string[] | null;
};

/** Every field null: the starting point of normalization and a convenient fixture. */
export function emptyTelemetryValues(): TelemetryValues {
  // Spelled out rather than built from the tables, so the compiler checks that every field of
  // TelemetryValues is present and no key ever comes from outside.
  return {
    stateOfCharge: null,
    stateOfHealth: null,
    batteryVoltage: null,
    batteryCurrent: null,
    batteryTemperature: null,
    batteryCapacity: null,
    remainingCapacity: null,
    solarVoltage: null,
    solarCurrent: null,
    solarPower: null,
    outputVoltage: null,
    outputCurrent: null,
    outputFrequency: null,
    loadPower: null,
    loadPercentage: null,
    apparentPower: null,
    gridVoltage: null,
    gridCurrent: null,
    gridFrequency: null,
    gridPower: null,
    totalEnergyProduced: null,
    totalEnergyConsumed: null,
    dailyEnergyProduced: null,
    dailyEnergyConsumed: null,
    operatingMode: null,
    deviceStatus: null,
    faultCodes: null,
    warningCodes: null,
  };
}
