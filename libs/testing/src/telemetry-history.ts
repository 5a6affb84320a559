import { Client } from 'pg';

/** One stored reading, as a synthetic series gives it (null: the field was not sent). */
export interface HistoryReading {
  timestamp: string;
  solarPower?: number | null;
  loadPower?: number | null;
  stateOfCharge?: number | null;
}

/**
 * Stores readings by SQL (quicker than sending thousands of messages): the month partitions they
 * need, the rows, and the hourly rollup recounted over them, as the writer keeps it, so what is
 * read from either is what the app would have stored.
 */
export async function insertTelemetryHistory(
  db: Client,
  sunSourceId: string,
  readings: HistoryReading[],
): Promise<void> {
  if (readings.length === 0) return;
  const times = readings.map((reading) => reading.timestamp);
  const instants = times.map((time) => Date.parse(time));
  const [first, last] = [new Date(Math.min(...instants)), new Date(Math.max(...instants))];
  await db.query(
    `SELECT ensure_telemetry_partition(month::date)
       FROM generate_series(date_trunc('month', $1::timestamptz, 'UTC'), $2::timestamptz, interval '1 month') AS month`,
    [first, last],
  );
  await db.query(
    `INSERT INTO telemetry (sun_source_id, ts, solar_power, load_power, state_of_charge, raw)
     SELECT $1, r.ts, r.solar, r.load, r.soc, '{}'::jsonb
       FROM unnest($2::timestamptz[], $3::float8[], $4::float8[], $5::float8[]) AS r (ts, solar, load, soc)`,
    [
      sunSourceId,
      times,
      readings.map((reading) => reading.solarPower ?? null),
      readings.map((reading) => reading.loadPower ?? null),
      readings.map((reading) => reading.stateOfCharge ?? null),
    ],
  );
  await db.query(
    `SELECT rebuild_telemetry_hourly($1, $2::timestamptz, $3::timestamptz + interval '1 hour')`,
    [sunSourceId, first, last],
  );
}
