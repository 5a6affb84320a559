import { ApiProperty } from '@nestjs/swagger';
import { RoiDay, RoiSummary } from '@solar/domain';

export class RoiDayDto implements RoiDay {
  @ApiProperty({ format: 'date-time', description: 'UTC midnight starting the day' }) date!: string;
  @ApiProperty({ description: 'kWh, 3 decimals' }) energyProducedKwh!: number;
  @ApiProperty({ description: 'The price in effect that day; 0 when none was' }) pricePerKwh!: number;
  @ApiProperty({ description: 'energy × price, 2 decimals' }) savings!: number;
  @ApiProperty({ description: 'Running sum of savings, forecast days included' }) cumulativeSavings!: number;
  @ApiProperty({ description: 'A forecast day, not counted in the totals' }) isPrediction!: boolean;
}

/** Return-on-investment summary of a source; the formulas are in docs/roi.md. */
export class RoiSummaryDto implements RoiSummary {
  @ApiProperty({ description: 'Measured days only' }) totalEnergyProducedKwh!: number;
  @ApiProperty({ description: 'Measured days only' }) totalSavings!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) firstDataDate!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastDataDate!: string | null;
  @ApiProperty({ type: RoiDayDto, isArray: true }) dailyBreakdown!: RoiDayDto[];
  @ApiProperty({ description: '0 when the source has none' }) systemCost!: number;
  @ApiProperty({ description: '0 without a system cost' }) roiPercentage!: number;
  @ApiProperty({ description: '0 when it cannot be computed' }) paybackPeriodYears!: number;
  @ApiProperty() monthlyAvgSavings!: number;
  @ApiProperty({ description: 'systemCost > 0' }) hasInvestmentData!: boolean;
}
