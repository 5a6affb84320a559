import { CreateUsers1764000000000 } from './1764000000000-create-users';
import { CreateSourcesGroupsPricesSettings1764100000000 } from './1764100000000-create-sources-groups-prices-settings';
import { CreateTelemetry1764200000000 } from './1764200000000-create-telemetry';
import { TolerateConcurrentPartitionCreation1764300000000 } from './1764300000000-tolerate-concurrent-partition-creation';
import { CreateWeather1764400000000 } from './1764400000000-create-weather';
import { CreateSourceSharing1764500000000 } from './1764500000000-create-source-sharing';
import { CreateForecasts1764600000000 } from './1764600000000-create-forecasts';
import { CreateTelemetryHourly1764700000000 } from './1764700000000-create-telemetry-hourly';
import { AddUserSessionGeneration1764810000000 } from './1764810000000-add-user-session-generation';
import { AddWeatherCoordinates1764850000000 } from './1764850000000-add-weather-coordinates';
import { CreateDayAheadForecasts1764900000000 } from './1764900000000-create-day-ahead-forecasts';
import { RollUpEnergyIncrements1764950000000 } from './1764950000000-roll-up-energy-increments';
import { PlanOpeningsJoinPerCall1765000000000 } from './1765000000000-plan-openings-join-per-call';
import { AddCredentialDigests1765100000000 } from './1765100000000-add-credential-digests';
import { PairChangedHoursByGrouping1765200000000 } from './1765200000000-pair-changed-hours-by-grouping';
import { LimitTelemetryStatistics1765300000000 } from './1765300000000-limit-telemetry-statistics';
import { LimitTelemetryHourlyStatistics1765400000000 } from './1765400000000-limit-telemetry-hourly-statistics';
import { AddArrayOrientation1765500000000 } from './1765500000000-add-array-orientation';
import { AddModelRetrainingFailure1765600000000 } from './1765600000000-add-model-retraining-failure';

/** Every migration, in order. Listed explicitly so the build and the tests run the same set. */
export const migrations = [
  CreateUsers1764000000000,
  CreateSourcesGroupsPricesSettings1764100000000,
  CreateTelemetry1764200000000,
  TolerateConcurrentPartitionCreation1764300000000,
  CreateWeather1764400000000,
  CreateSourceSharing1764500000000,
  CreateForecasts1764600000000,
  CreateTelemetryHourly1764700000000,
  AddUserSessionGeneration1764810000000,
  AddWeatherCoordinates1764850000000,
  CreateDayAheadForecasts1764900000000,
  RollUpEnergyIncrements1764950000000,
  PlanOpeningsJoinPerCall1765000000000,
  AddCredentialDigests1765100000000,
  PairChangedHoursByGrouping1765200000000,
  LimitTelemetryStatistics1765300000000,
  LimitTelemetryHourlyStatistics1765400000000,
  AddArrayOrientation1765500000000,
  AddModelRetrainingFailure1765600000000,
];
