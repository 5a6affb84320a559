/**
 * Server-side generation of realistic telemetry: one `INSERT … SELECT` per time window, rows in
 * time order across all sources (as ingestion writes them: every source reports every interval,
 * so one source's rows are spread over the heap, not packed together).
 *
 * The values follow a day: PV power from a season- and cloud-dependent sine between sunrise and
 * sunset (clouds drawn per source and day), a household load with morning and evening peaks, a
 * battery whose charge follows the sun, daily energy counters that rise through the day and reset
 * at UTC midnight, cumulative totals, grid voltage and frequency with noise, an operating mode, and
 * now and then a warning or fault code. Sources whose number is a multiple of 5 report a fault in
 * their last two hours, multiples of 7 a warning in their last hour, so that `faults` has work.
 */

export const TELEMETRY_COLUMNS = [
  'sun_source_id',
  'ts',
  'received_at',
  'state_of_charge',
  'state_of_health',
  'battery_voltage',
  'battery_current',
  'battery_temperature',
  'battery_capacity',
  'remaining_capacity',
  'solar_voltage',
  'solar_current',
  'solar_power',
  'output_voltage',
  'output_current',
  'output_frequency',
  'load_power',
  'load_percentage',
  'apparent_power',
  'grid_voltage',
  'grid_current',
  'grid_frequency',
  'grid_power',
  'total_energy_produced',
  'total_energy_consumed',
  'daily_energy_produced',
  'daily_energy_consumed',
  'operating_mode',
  'device_status',
  'fault_codes',
  'warning_codes',
  'raw',
] as const;

/** `expression` rounded to `digits` decimals in float8 arithmetic (numeric's round is slow). */
const r = (expression: string, digits: number) => `(round((${expression}) * 1e${digits}) / 1e${digits})`;

/**
 * Parameters: $1 uuid[] source ids, $2 float8[] their capacities (W), $3 int[] their numbers
 * (1-based, stable across windows), $4 window start (inclusive), $5 window end (exclusive),
 * $6 step of the series (interval), $7 the end of all data (faults and warnings of the last
 * hours), $8 int[] each source's own step in seconds (a multiple of $6): a 10-second source and
 * 5-minute ones in one window come out interleaved in time order, as ingestion stores them.
 */
export const INSERT_WINDOW_SQL = `
INSERT INTO telemetry (${TELEMETRY_COLUMNS.join(', ')})
SELECT s.id, g.ts, g.ts + make_interval(secs => 0.05 + 0.4 * random()),
       v.soc, v.soh, ${r(`46 + v.soc * 0.08`, 2)},
       ${r(`greatest(-180, least(180, (v.solar - v.load) / 50))`, 2)},
       ${r(`18 + 8 * v.season + 4 * v.shape + random()`, 1)},
       200, ${r(`2 * v.soc`, 1)},
       v.pv_voltage, CASE WHEN v.pv_voltage > 0 THEN ${r(`v.solar / v.pv_voltage`, 2)} ELSE 0 END,
       v.solar,
       ${r(`229 + 2 * random()`, 1)}, ${r(`v.load / 230`, 2)},
       ${r(`49.95 + 0.1 * random()`, 2)},
       v.load, ${r(`v.load / 50`, 1)}, ${r(`v.load * 1.05`, 1)},
       v.grid_voltage, ${r(`v.grid / v.grid_voltage`, 2)},
       ${r(`49.95 + 0.1 * random()`, 3)}, v.grid,
       ${r(`1000 + (v.day - 19000) * s.cap * 0.0032 + v.produced`, 3)},
       ${r(`800 + (v.day - 19000) * 9.5 + v.consumed`, 3)},
       v.produced, v.consumed,
       v.mode, CASE WHEN v.faults IS NOT NULL THEN 'Fault' WHEN v.warnings IS NOT NULL THEN 'Warning' ELSE 'Normal' END,
       v.faults, v.warnings,
       jsonb_build_object(
         'timestamp', to_char(g.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
         'soc', v.soc, 'soh', v.soh, 'batteryVoltage', ${r(`46 + v.soc * 0.08`, 2)},
         'solarPower', v.solar, 'solarVoltage', v.pv_voltage, 'loadPower', v.load,
         'gridVoltage', v.grid_voltage, 'gridPower', v.grid,
         'dailyEnergyProduced', v.produced, 'dailyEnergyConsumed', v.consumed,
         'operatingMode', v.mode, 'faultCodes', v.faults, 'warningCodes', v.warnings,
         'firmware', '2.4.1')
  FROM (
   -- Per timestamp: hour of the (UTC) day, day number, season; OFFSET 0 keeps each level from
   -- being inlined into the next (which would evaluate every expression once per use).
   SELECT g.ts, date_part('epoch', g.ts)::bigint AS epoch, t.h, t.day, 6 + 2 * t.c AS half, (1 + t.c) / 2 AS season
     FROM generate_series($4::timestamptz, $5::timestamptz - $6::interval, $6::interval) AS g(ts)
    CROSS JOIN LATERAL (
      SELECT (date_part('epoch', g.ts) - 86400 * floor(date_part('epoch', g.ts) / 86400)) / 3600 AS h,
             floor(date_part('epoch', g.ts) / 86400)::int AS day,
             cos(2 * pi() * (date_part('doy', g.ts) - 172) / 365.25) AS c
    ) t
   OFFSET 0
 ) g
 CROSS JOIN LATERAL (
   SELECT u.id, u.cap, u.n FROM unnest($1::uuid[], $2::float8[], $3::int[], $8::int[]) AS u(id, cap, n, step)
    WHERE g.epoch % u.step = 0
 ) s
 CROSS JOIN LATERAL (
   -- Per source and day: clouds; per point: the sun's position in the day (-1 sunrise, 1 sunset).
   SELECT greatest(-1, least(1, (g.h - 11.5) / g.half)) AS x, c.cloud, s.cap * (0.45 + 0.55 * g.season) * c.cloud AS peak
     FROM (SELECT 0.25 + 0.75 * ((hashint8(g.day::bigint * 1009 + s.n)::float8 + 2147483648) / 4294967296) AS cloud) c
   OFFSET 0
 ) p
 CROSS JOIN LATERAL (
   SELECT g.day, g.season,
          CASE WHEN abs(p.x) < 1 THEN cos(pi() / 2 * p.x) ELSE 0 END AS shape,
          ${r(`CASE WHEN abs(p.x) < 1 THEN p.peak * cos(pi() / 2 * p.x) * (0.92 + 0.08 * random()) ELSE 0 END`, 1)} AS solar,
          ${r(`280 + 250 * exp(-((g.h - 7.5) ^ 2) / 2) + 450 * exp(-((g.h - 19) ^ 2) / 4) + 150 * random()`, 1)} AS load,
          ${r(`greatest(5, least(100, 50 + 40 * p.cloud * sin(2 * pi() * (g.h - 10) / 24) + 4 * random()))`, 1)} AS soc,
          ${r(`99 - s.n % 10 * 0.4`, 1)} AS soh,
          CASE WHEN abs(p.x) < 1 THEN ${r(`300 + 60 * cos(pi() / 2 * p.x) + 5 * random()`, 1)} ELSE 0 END AS pv_voltage,
          ${r(`228 + 4 * random()`, 1)} AS grid_voltage,
          ${r(`p.peak / 1000 * g.half * 2 / pi() * (sin(pi() / 2 * p.x) + 1)`, 3)} AS produced,
          ${r(`0.375 * g.h + 0.31 * (1 + tanh(1.2 * (g.h - 7.5))) + 0.8 * (1 + tanh(0.85 * (g.h - 19)))`, 3)} AS consumed,
          CASE WHEN s.n % 5 = 0 AND g.ts > $7::timestamptz - interval '2 hours' THEN ARRAY['F0' || (s.n % 7 + 1)]
               WHEN random() < 0.0004 THEN ARRAY['F02'] END AS faults,
          CASE WHEN s.n % 7 = 0 AND g.ts > $7::timestamptz - interval '1 hour' THEN ARRAY['W05']
               WHEN random() < 0.003 THEN ARRAY['W0' || (1 + s.n % 3)] END AS warnings
   OFFSET 0
 ) w
 CROSS JOIN LATERAL (
   SELECT w.*, ${r(`w.load - w.solar`, 1)} AS grid,
          CASE WHEN w.solar > w.load THEN 'Solar' WHEN w.soc > 20 THEN 'Battery' ELSE 'Grid' END AS mode
   OFFSET 0
 ) v`;
