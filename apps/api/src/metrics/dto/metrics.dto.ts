import { ApiProperty } from '@nestjs/swagger';
import { CombinedEnergyMethod, DailySummary, ReportHour, SunSourceMetrics } from '@solar/telemetry';

const nullableNumber = { type: Number, nullable: true } as const;

const energyMethod = (direction: string, counter: string, power: string) =>
  ({
    type: String,
    enum: ['counter', 'power', 'mixed'],
    nullable: true,
    description:
      `How ${direction} was counted: \`counter\` from the increments of \`${counter}\` (a drop is a ` +
      `restart), \`power\` from \`${power}\` over time (days without a counter reading), \`mixed\` ` +
      `for a week whose days differ; null without energy`,
  }) as const;

/** The latest metrics of a sun source. */
export class SunSourceMetricsDto implements SunSourceMetrics {
  @ApiProperty({ format: 'uuid' }) sunSourceId!: string;
  @ApiProperty({ format: 'date-time' }) timestamp!: string;
  @ApiProperty({ ...nullableNumber, description: '%' }) stateOfCharge!: number | null;
  @ApiProperty({ ...nullableNumber, description: '%' }) stateOfHealth!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'V' }) batteryVoltage!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'A' }) batteryCurrent!: number | null;
  @ApiProperty({ ...nullableNumber, description: '°C' }) batteryTemperature!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'V' }) solarVoltage!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'A' }) solarCurrent!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'W' }) solarPower!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'V' }) outputVoltage!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'A' }) outputCurrent!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'W' }) loadPower!: number | null;
  @ApiProperty({ ...nullableNumber, description: '%' }) loadPercentage!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'V' }) gridVoltage!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'Hz' }) gridFrequency!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'kWh' }) dailyEnergyProduced!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'kWh' }) dailyEnergyConsumed!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'kWh, cumulative' }) totalEnergyProduced!: number | null;
  @ApiProperty({ type: String, nullable: true }) operatingMode!: string | null;
  @ApiProperty({ type: String, nullable: true }) deviceStatus!: string | null;
  @ApiProperty({ type: String, isArray: true, nullable: true }) faultCodes!: string[] | null;
  @ApiProperty({ type: String, isArray: true, nullable: true }) warningCodes!: string[] | null;
}

/** One historical data point of a sun source, with load power and the sample count. */
export class HourlyAggregateDto implements ReportHour {
  @ApiProperty({ format: 'date-time', description: 'Start of the UTC hour' }) timestamp!: string;
  @ApiProperty(nullableNumber) averageBatteryVoltage!: number | null;
  @ApiProperty(nullableNumber) averageStateOfCharge!: number | null;
  @ApiProperty(nullableNumber) averageSolarPower!: number | null;
  @ApiProperty(nullableNumber) averageLoadPercentage!: number | null;
  @ApiProperty(nullableNumber) averageLoadPower!: number | null;
  @ApiProperty(nullableNumber) maxSolarPower!: number | null;
  @ApiProperty(nullableNumber) maxLoadPower!: number | null;
  @ApiProperty(nullableNumber) minStateOfCharge!: number | null;
  @ApiProperty({ type: 'integer' }) sampleCount!: number;
}

/** The summary of one period (a UTC day, or the Monday of an ISO week). */
export class DailySummaryDto implements DailySummary {
  @ApiProperty({ example: '2026-11-23' }) date!: string;
  @ApiProperty(nullableNumber) solarPowerAvg!: number | null;
  @ApiProperty(nullableNumber) solarPowerMax!: number | null;
  @ApiProperty(nullableNumber) loadPowerAvg!: number | null;
  @ApiProperty(nullableNumber) loadPowerMax!: number | null;
  @ApiProperty(nullableNumber) socAvg!: number | null;
  @ApiProperty(nullableNumber) socMin!: number | null;
  @ApiProperty(nullableNumber) socMax!: number | null;
  @ApiProperty(nullableNumber) voltageAvg!: number | null;
  @ApiProperty(nullableNumber) gridVoltageAvg!: number | null;
  @ApiProperty(nullableNumber) gridFreqAvg!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'kWh produced in the period (see energyProducedMethod)' })
  energyProduced!: number | null;
  @ApiProperty({ ...nullableNumber, description: 'kWh consumed in the period (see energyConsumedMethod)' })
  energyConsumed!: number | null;
  @ApiProperty({ type: 'integer' }) sampleCount!: number;
  @ApiProperty(energyMethod('energyProduced', 'dailyEnergyProduced', 'solarPower'))
  energyProducedMethod!: CombinedEnergyMethod | null;
  @ApiProperty(energyMethod('energyConsumed', 'dailyEnergyConsumed', 'loadPower'))
  energyConsumedMethod!: CombinedEnergyMethod | null;
}
