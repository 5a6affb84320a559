/** One day of the ROI breakdown. */
export interface RoiDay {
  /** UTC midnight starting the day, ISO 8601. */
  date: string;
  energyProducedKwh: number;
  pricePerKwh: number;
  savings: number;
  cumulativeSavings: number;
  /** True for a forecast day; its figures are not in the measured totals. */
  isPrediction: boolean;
}

/** The ROI summary of a source (response of calculate). */
export interface RoiSummary {
  totalEnergyProducedKwh: number;
  totalSavings: number;
  currency: string;
  firstDataDate: string | null;
  lastDataDate: string | null;
  dailyBreakdown: RoiDay[];
  systemCost: number;
  roiPercentage: number;
  paybackPeriodYears: number;
  monthlyAvgSavings: number;
  hasInvestmentData: boolean;
}
