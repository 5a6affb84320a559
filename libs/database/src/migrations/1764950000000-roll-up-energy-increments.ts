import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A day's energy, one reading at a time: the energy a reading of a counter (kWh) carries, given
 * the counter's previous reading, both at epoch seconds. Days are UTC days.
 * - Previous reading the same day: the rise since it; a drop is a restart of the counter, whose
 *   new value is all new energy.
 * - Previous reading the day before (this is the day's first reading): a daily counter restarts
 *   at midnight, so a lower reading counts whole; one that did not drop kept counting across
 *   midnight (a lifetime counter, or one restarting at another hour): it counts nothing, and the
 *   day gets only its own rises.
 * - No reading the same or the day before: the reading counts whole, as a daily counter's first.
 */
const COUNTER_INCREMENT = `
  CREATE FUNCTION telemetry_counter_increment(
    previous_at double precision, previous double precision,
    reading_at double precision, reading double precision)
  RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
      WHEN reading IS NULL THEN NULL
      WHEN previous IS NULL THEN reading
      ELSE CASE floor(reading_at / 86400) - floor(previous_at / 86400)
        WHEN 0 THEN CASE WHEN reading >= previous THEN reading - previous ELSE reading END
        WHEN 1 THEN CASE WHEN reading < previous THEN reading ELSE 0 END
        ELSE reading
      END
    END
  $$`;

/**
 * The energy (kWh) a power reading (W) carries, given the field's previous reading: the
 * trapezoid between them when both lie in the same UTC day at most 15 minutes apart; NULL (no
 * energy known) across a longer gap or across midnight.
 */
const POWER_INCREMENT = `
  CREATE FUNCTION telemetry_power_increment(
    previous_at double precision, previous double precision,
    reading_at double precision, reading double precision)
  RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
      WHEN previous IS NOT NULL AND reading IS NOT NULL
           AND floor(reading_at / 86400) = floor(previous_at / 86400)
           AND reading_at - previous_at <= 900
      THEN (previous + reading) / 2 * (reading_at - previous_at) / 3600000
    END
  $$`;

const AVERAGED = [
  'battery_voltage',
  'state_of_charge',
  'solar_power',
  'load_percentage',
  'load_power',
  'grid_voltage',
  'grid_frequency',
];
const COUNTERS = ['daily_energy_produced', 'daily_energy_consumed'];
const POWERS = ['solar_power', 'load_power'];
/** The raw columns the rollup is computed from. */
const RAW_COLUMNS = ['sun_source_id', 'ts', ...AVERAGED, ...COUNTERS];

/** The columns this migration adds, in table order after the existing ones, with their types. */
const ADDED_COLUMNS: Array<[name: string, type: string]> = [
  ['first_ts', 'timestamptz NOT NULL'],
  ['last_ts', 'timestamptz NOT NULL'],
  ...COUNTERS.flatMap((counter): Array<[string, string]> => [
    [`first_${counter}`, 'double precision'],
    [`last_${counter}`, 'double precision'],
    [`${counter}_increase`, 'double precision NOT NULL'],
  ]),
  ...POWERS.flatMap((power): Array<[string, string]> => [
    [`first_${power}_at`, 'timestamptz'],
    [`first_${power}`, 'double precision'],
    [`last_${power}_at`, 'timestamptz'],
    [`last_${power}`, 'double precision'],
    [`${power}_kwh`, 'double precision'],
  ]),
  ['recount', 'boolean NOT NULL DEFAULT false'],
];

/**
 * Each hour's opening: what its first reading of each field carries over the field's last reading
 * before the hour (`telemetry_counter_increment`, `telemetry_power_increment`), so that a day's
 * energy is the sum of its hours without pairing hours at query time. NULL when the hour has no
 * reading of the field (or, for power, nothing to bridge to).
 */
const OPENING_COLUMNS: Array<[name: string, type: string]> = [
  ...COUNTERS.map((counter): [string, string] => [`opening_${counter}`, 'double precision']),
  ...POWERS.map((power): [string, string] => [`opening_${power}_kwh`, 'double precision']),
];

/** Every column of the new `telemetry_hourly`, in table order. */
const NEW_COLUMNS = [
  'sun_source_id',
  'hour',
  'sample_count',
  ...AVERAGED.flatMap((field) => [`${field}_sum`, `${field}_count`]),
  'max_solar_power',
  'max_load_power',
  'min_state_of_charge',
  'max_state_of_charge',
  ...ADDED_COLUMNS.map(([name]) => name).filter((name) => name !== 'recount'),
  ...OPENING_COLUMNS.map(([name]) => name),
];

/**
 * Raw rows (`rows`: a FROM item of telemetry rows, alias t) to `telemetry_hourly` rows in NEW_COLUMNS order, exactly
 * (frozen here: this is a migration). Each reading is paired with the previous reading of its
 * field (`previous_*`: [epoch, value]); the pairs within an hour make its increase and energy, the
 * pair ending at the hour's first reading its opening (as if nothing came before `rows`).
 */
const hourlyFromRaw = (rows: string) => `
  SELECT sun_source_id, hour, count(*),
         ${AVERAGED.map((field) => `coalesce(sum(${field}), 0), count(${field})`).join(', ')},
         max(solar_power), max(load_power), min(state_of_charge), max(state_of_charge),
         min(ts), max(ts),
         ${COUNTERS.map(
           (counter) => `
         (min(ARRAY[epoch, ${counter}]) FILTER (WHERE ${counter} IS NOT NULL))[2],
         (max(ARRAY[epoch, ${counter}]) FILTER (WHERE ${counter} IS NOT NULL))[2],
         coalesce(sum(telemetry_counter_increment(previous_${counter}[1], previous_${counter}[2], epoch, ${counter}))
                    FILTER (WHERE previous_${counter}[1] >= hour_epoch), 0)`,
         ).join(',')},
         ${POWERS.map(
           (power) => `
         min(ts) FILTER (WHERE ${power} IS NOT NULL),
         (min(ARRAY[epoch, ${power}]) FILTER (WHERE ${power} IS NOT NULL))[2],
         max(ts) FILTER (WHERE ${power} IS NOT NULL),
         (max(ARRAY[epoch, ${power}]) FILTER (WHERE ${power} IS NOT NULL))[2],
         sum(telemetry_power_increment(previous_${power}[1], previous_${power}[2], epoch, ${power}))
           FILTER (WHERE previous_${power}[1] >= hour_epoch)`,
         ).join(',')},
         ${[...COUNTERS, ...POWERS]
           .map(
             (field) => `
         sum(telemetry_${COUNTERS.includes(field) ? 'counter' : 'power'}_increment(previous_${field}[1], previous_${field}[2], epoch, ${field}))
           FILTER (WHERE ${field} IS NOT NULL AND (previous_${field} IS NULL OR previous_${field}[1] < hour_epoch))`,
           )
           .join(',')}
    FROM (
      SELECT r.*, date_part('epoch', r.ts) AS epoch, date_part('epoch', r.hour) AS hour_epoch,
             ${[...COUNTERS, ...POWERS]
               .map(
                 (field) =>
                   `max(ARRAY[date_part('epoch', r.ts), r.${field}]) FILTER (WHERE r.${field} IS NOT NULL) OVER earlier AS previous_${field}`,
               )
               .join(',\n             ')}
        FROM (SELECT ${RAW_COLUMNS.map((column) => `t.${column}`).join(', ')}, date_trunc('hour', t.ts, 'UTC') AS hour
                FROM ${rows}) r
      WINDOW earlier AS (PARTITION BY r.sun_source_id ORDER BY r.ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
    ) paired
   GROUP BY sun_source_id, hour`;

const OVERWRITE = [...NEW_COLUMNS.slice(2), 'recount']
  .map((column) => `${column} = ${column === 'recount' ? 'false' : `EXCLUDED.${column}`}`)
  .join(', ');

/** The previous version's, restored by `down`. */
const OLD_HOURLY_AGGREGATES = `
  sun_source_id, date_trunc('hour', ts, 'UTC'), count(*),
  ${AVERAGED.map((field) => `coalesce(sum(${field}), 0), count(${field})`).join(', ')},
  max(solar_power), max(load_power), min(state_of_charge), max(state_of_charge),
  max(daily_energy_produced), max(daily_energy_consumed)`;
const OLD_OVERWRITE = [
  'sample_count',
  ...AVERAGED.flatMap((field) => [`${field}_sum`, `${field}_count`]),
  'max_solar_power',
  'max_load_power',
  'min_state_of_charge',
  'max_state_of_charge',
  'max_daily_energy_produced',
  'max_daily_energy_consumed',
]
  .map((column) => `${column} = EXCLUDED.${column}`)
  .join(', ');

/** `rebuild_telemetry_hourly` as the previous migration has it, with `insert` filling the hours (after `lock`). */
const rebuildFunction = (insert: string, lock = '') => `
  CREATE OR REPLACE FUNCTION rebuild_telemetry_hourly(source uuid, from_ts timestamptz, to_ts timestamptz)
  RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    first_hour timestamptz := date_trunc('hour', from_ts, 'UTC');
    after_last_hour timestamptz := date_trunc('hour', to_ts - interval '1 microsecond', 'UTC') + interval '1 hour';
  BEGIN
    IF from_ts >= to_ts THEN
      RETURN;
    END IF;
    ${lock}
    PERFORM 1 FROM telemetry_hourly
      WHERE sun_source_id = source AND hour >= first_hour AND hour < after_last_hour
      ORDER BY hour FOR UPDATE;
    DELETE FROM telemetry_hourly
      WHERE sun_source_id = source AND hour >= first_hour AND hour < after_last_hour;
    ${insert}
  END
  $$`;

const REBUILD = rebuildFunction(
  `
    INSERT INTO telemetry_hourly (${NEW_COLUMNS.join(', ')})
    ${hourlyFromRaw(`telemetry t WHERE t.sun_source_id = source AND t.ts >= first_hour AND t.ts < after_last_hour`)}
     ORDER BY hour
    -- Only when a batch created one of these hours after the DELETE: our count includes it.
    ON CONFLICT (sun_source_id, hour) DO UPDATE SET ${OVERWRITE};`,
  // The lock ingestion holds on a source while it writes it: one writer of a source's hours at a time.
  `PERFORM pg_advisory_xact_lock(hashtext('telemetry-source'), hashtext(source::text));`,
);

const OLD_REBUILD = rebuildFunction(`
    INSERT INTO telemetry_hourly
    SELECT ${OLD_HOURLY_AGGREGATES}
      FROM telemetry
     WHERE sun_source_id = source AND ts >= first_hour AND ts < after_last_hour
     GROUP BY 1, 2 ORDER BY 2
    ON CONFLICT (sun_source_id, hour) DO UPDATE SET ${OLD_OVERWRITE};`);

/**
 * The last reading of `counter` before hour row `c` that its first reading counts from, as
 * [epoch, kWh]: in `p`, the hour just before c's that has a row, or, when `p` has no reading of
 * the counter, the latest hour before it that has one; none older than the day before c's.
 */
const previousCounterReading = (counter: string) => `
  CASE WHEN p.hour IS NULL OR p.hour < date_trunc('day', c.hour, 'UTC') - interval '1 day' THEN NULL
       WHEN p.last_${counter} IS NOT NULL THEN ARRAY[date_part('epoch', p.hour), p.last_${counter}]
       ELSE (SELECT ARRAY[date_part('epoch', b.hour), b.last_${counter}] FROM telemetry_hourly b
              WHERE b.sun_source_id = c.sun_source_id AND b.hour < p.hour
                AND b.hour >= date_trunc('day', c.hour, 'UTC') - interval '1 day' AND b.last_${counter} IS NOT NULL
              ORDER BY b.hour DESC LIMIT 1)
  END`;

/**
 * The openings of hour row `c` given `p`, the row of the hour before it (if any), and `q`, the
 * counters' previous readings, in OPENING_COLUMNS order.
 */
const OPENINGS = [
  ...COUNTERS.map(
    (counter) => `CASE WHEN c.first_${counter} IS NOT NULL THEN telemetry_counter_increment(
         q.${counter}[1], q.${counter}[2], date_part('epoch', c.hour), c.first_${counter}) END`,
  ),
  // A power reading bridges at most 15 minutes: only the hour just before can hold the one before.
  ...POWERS.map(
    (power) => `CASE WHEN p.hour = c.hour - interval '1 hour' THEN telemetry_power_increment(
         date_part('epoch', p.last_${power}_at), p.last_${power}, date_part('epoch', c.first_${power}_at), c.first_${power}) END`,
  ),
];

/**
 * The hours after touched hour `t` whose first readings count from t's last ones: the next hour
 * with a row, and for a counter it has no reading of, the next hour that has one (within the
 * next day).
 */
const NEXT_HOURS = `
  SELECT t.sun_source_id, x.hour FROM touched t
   CROSS JOIN LATERAL (
     SELECT n.hour, ${COUNTERS.map((counter) => `n.first_${counter}`).join(', ')} FROM telemetry_hourly n
      WHERE n.sun_source_id = t.sun_source_id AND n.hour > t.hour
      ORDER BY n.hour LIMIT 1) n
   CROSS JOIN LATERAL (VALUES (n.hour), ${COUNTERS.map(
     (counter) => `(CASE WHEN n.first_${counter} IS NULL THEN (
       SELECT m.hour FROM telemetry_hourly m
        WHERE m.sun_source_id = t.sun_source_id AND m.hour > n.hour
          AND m.hour < date_trunc('day', t.hour, 'UTC') + interval '2 days' AND m.first_${counter} IS NOT NULL
        ORDER BY m.hour LIMIT 1) END)`,
   ).join(', ')}) x(hour)
  WHERE x.hour IS NOT NULL`;

/**
 * `refresh_telemetry_openings(sources, hours, own)`: recomputes the openings of the given hours
 * (those whose `own` is true) and of the hours whose first readings count from theirs (the next
 * ones), writing only those that changed. Called at the end of every statement that changes `telemetry_hourly`, with the hours it
 * changed, by the triggers below. An hour costs an index probe for the hour before it and one for
 * the hour after.
 */
const REFRESH_OPENINGS = `
  CREATE FUNCTION refresh_telemetry_openings(sources uuid[], hours timestamptz[], own boolean[]) RETURNS void
  LANGUAGE plpgsql AS $$
  BEGIN
    -- Its own UPDATE fires the triggers again: nothing is left to do then.
    PERFORM set_config('solar.refreshing_openings', 'on', true);
    WITH touched AS MATERIALIZED (
      SELECT t.sun_source_id, t.hour, bool_or(t.own_opening) AS own_opening
        FROM unnest(sources, hours, own) AS t(sun_source_id, hour, own_opening)
       GROUP BY 1, 2
    ), targets AS MATERIALIZED (
      SELECT sun_source_id, hour FROM touched WHERE own_opening
      UNION
      ${NEXT_HOURS}
    ), computed AS MATERIALIZED (
      SELECT c.sun_source_id, c.hour, ${OPENINGS.map((sql, index) => `${sql} AS ${OPENING_COLUMNS[index][0]}`).join(',\n             ')}
        FROM targets t
        CROSS JOIN LATERAL (
          SELECT * FROM telemetry_hourly c WHERE c.sun_source_id = t.sun_source_id AND c.hour = t.hour) c
        LEFT JOIN LATERAL (
          SELECT * FROM telemetry_hourly p WHERE p.sun_source_id = c.sun_source_id AND p.hour < c.hour
           ORDER BY p.hour DESC LIMIT 1) p ON true
        -- Evaluated once per row (OFFSET 0: not folded into each use).
        CROSS JOIN LATERAL (SELECT ${COUNTERS.map((counter) => `${previousCounterReading(counter)} AS ${counter}`).join(', ')} OFFSET 0) q
    )
    UPDATE telemetry_hourly h
       SET ${OPENING_COLUMNS.map(([name]) => `${name} = computed.${name}`).join(', ')}
      FROM computed
     WHERE h.sun_source_id = computed.sun_source_id AND h.hour = computed.hour
       AND (${OPENING_COLUMNS.map(([name]) => `h.${name}`).join(', ')})
           IS DISTINCT FROM (${OPENING_COLUMNS.map(([name]) => `computed.${name}`).join(', ')});
    PERFORM set_config('solar.refreshing_openings', 'off', true);
  END
  $$`;

/** The columns an hour's opening is computed from (its first readings), and those the next hour's is (its last). */
const FIRST_READINGS = [
  ...COUNTERS.map((counter) => `first_${counter}`),
  ...POWERS.flatMap((power) => [`first_${power}_at`, `first_${power}`]),
];
const LAST_READINGS = [
  ...COUNTERS.map((counter) => `last_${counter}`),
  ...POWERS.flatMap((power) => [`last_${power}_at`, `last_${power}`]),
];
const changedBetween = (columns: string[]) =>
  `(${columns.map((column) => `o.${column}`).join(', ')}) IS DISTINCT FROM (${columns.map((column) => `n.${column}`).join(', ')})`;

/**
 * The statement-level trigger function, over the hours a statement changed (transition tables
 * `changed`, and for an UPDATE `changed_before`): an inserted hour needs its opening and the next
 * hour's, a deleted one the next hour's, an updated one its own only if its first readings changed
 * and the next hour's only if its last ones did (a device's point appended to its hour changes
 * only the last).
 *
 * `planned`: `'once'` as this migration created it, where PL/pgSQL keeps the UPDATE's join of the
 * two transition tables planned for the size they had at its first call in a connection;
 * `'per call'` as `PlanOpeningsJoinPerCall1765000000000` replaces it.
 */
export function refreshOpeningsTrigger(planned: 'once' | 'per call'): string {
  const updatedHours = `refresh_telemetry_openings(array_agg(n.sun_source_id), array_agg(n.hour), array_agg(${changedBetween(FIRST_READINGS)}))
         FROM changed n JOIN changed_before o ON o.sun_source_id = n.sun_source_id AND o.hour = n.hour
        WHERE ${changedBetween(FIRST_READINGS)} OR ${changedBetween(LAST_READINGS)}
       HAVING count(*) > 0`;
  return openingsTriggerFunction(
    planned === 'once' ? `PERFORM ${updatedHours}` : `EXECUTE $update$SELECT ${updatedHours}$update$`,
  );
}

/**
 * `refresh_telemetry_openings_after()` with `updatedHours`, the statement that refreshes the
 * openings after an UPDATE; the guard and the INSERT and DELETE branch are every version's.
 */
export function openingsTriggerFunction(updatedHours: string): string {
  return `
  CREATE OR REPLACE FUNCTION refresh_telemetry_openings_after() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('solar.refreshing_openings', true) IS NOT DISTINCT FROM 'on' THEN
      RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
      ${updatedHours};
    ELSE
      PERFORM refresh_telemetry_openings(array_agg(sun_source_id), array_agg(hour), array_agg(TG_OP = 'INSERT'))
         FROM changed HAVING count(*) > 0;
    END IF;
    RETURN NULL;
  END
  $$`;
}

const OPENING_TRIGGERS = [
  ['INSERT', 'NEW TABLE AS changed'],
  ['UPDATE', 'NEW TABLE AS changed OLD TABLE AS changed_before'],
  ['DELETE', 'OLD TABLE AS changed'],
].map(
  ([event, tables]) => `
  CREATE TRIGGER refresh_telemetry_openings_after_${event.toLowerCase()} AFTER ${event} ON telemetry_hourly
    REFERENCING ${tables}
    FOR EACH STATEMENT EXECUTE FUNCTION refresh_telemetry_openings_after()`,
);

/**
 * `telemetry_hourly` keeps, instead of each hour's highest daily energy counters, what a day's
 * energy is counted from: per counter its first and last reading and the increase between its
 * readings within the hour; per power field (solar for production, load for consumption) its
 * first and last reading with their times and the energy integrated within the hour; and the
 * hour's first and last timestamp; and each field's opening, what the hour's first reading
 * carries over the last reading before the hour. A day's energy is then the sum of its hours.
 *
 * Ingestion adds a batch's points to an hour in its INSERT. That is exact when the hour's stored
 * points all lie before the batch's (or all after) and the batch brings at most one reading of
 * each of those fields to the hour; otherwise it sets `recount`, and the trigger recounts the hour
 * from its raw rows at the end of the same statement, which sees them all, so `recount` is never
 * true once committed. The openings are kept by statement-level triggers: at the end of every
 * statement that changes hours, those hours' openings and the next hours' are recomputed from the
 * rollup (with a fresh snapshot, which sees hours a concurrent statement committed meanwhile;
 * ingestion takes a lock per source so that two batches of one source do not run side by side).
 *
 * Upgrading: the rollup is recounted from the raw rows; processes of the previous version fail
 * to store (their INSERT names a dropped column) until they are replaced. Stop ingestion
 * meanwhile; devices resend what was not acknowledged.
 */
export class RollUpEnergyIncrements1764950000000 implements MigrationInterface {
  name = 'RollUpEnergyIncrements1764950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(COUNTER_INCREMENT);
    await queryRunner.query(POWER_INCREMENT);
    await queryRunner.query(`TRUNCATE telemetry_hourly`);
    await queryRunner.query(
      `ALTER TABLE telemetry_hourly
         DROP COLUMN max_daily_energy_produced,
         DROP COLUMN max_daily_energy_consumed,
         ${[...ADDED_COLUMNS, ...OPENING_COLUMNS].map(([name, type]) => `ADD COLUMN ${name} ${type}`).join(', ')}`,
    );
    await queryRunner.query(REBUILD);
    await queryRunner.query(REFRESH_OPENINGS);
    await queryRunner.query(refreshOpeningsTrigger('once'));
    for (const trigger of OPENING_TRIGGERS) await queryRunner.query(trigger);
    await queryRunner.query(`
      CREATE FUNCTION recount_telemetry_hour() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM rebuild_telemetry_hourly(NEW.sun_source_id, NEW.hour, NEW.hour + interval '1 hour');
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER recount_telemetry_hour AFTER INSERT OR UPDATE ON telemetry_hourly
        FOR EACH ROW WHEN (NEW.recount) EXECUTE FUNCTION recount_telemetry_hour()`);

    // One partition (month, so whole hours) at a time, as the rollup's first backfill did.
    await queryRunner.query(`SET LOCAL work_mem = '64MB'`);
    const partitions: Array<{ name: string }> = await queryRunner.query(
      `SELECT inhrelid::regclass::text AS name FROM pg_inherits
        WHERE inhparent = 'telemetry'::regclass ORDER BY 1`,
    );
    for (const { name } of partitions) {
      await queryRunner.query(
        `INSERT INTO telemetry_hourly (${NEW_COLUMNS.join(', ')})
         ${hourlyFromRaw(`${name} t`)} ORDER BY 1, 2`,
      );
    }
    await queryRunner.query(`ANALYZE telemetry_hourly`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const event of ['insert', 'update', 'delete']) {
      await queryRunner.query(`DROP TRIGGER refresh_telemetry_openings_after_${event} ON telemetry_hourly`);
    }
    await queryRunner.query(`DROP FUNCTION refresh_telemetry_openings_after()`);
    await queryRunner.query(`DROP FUNCTION refresh_telemetry_openings(uuid[], timestamptz[], boolean[])`);
    await queryRunner.query(`DROP TRIGGER recount_telemetry_hour ON telemetry_hourly`);
    await queryRunner.query(`DROP FUNCTION recount_telemetry_hour()`);
    await queryRunner.query(`TRUNCATE telemetry_hourly`);
    await queryRunner.query(
      `ALTER TABLE telemetry_hourly
         ${[...ADDED_COLUMNS, ...OPENING_COLUMNS].map(([name]) => `DROP COLUMN ${name}`).join(', ')},
         ADD COLUMN max_daily_energy_produced double precision,
         ADD COLUMN max_daily_energy_consumed double precision`,
    );
    await queryRunner.query(OLD_REBUILD);
    await queryRunner.query(
      `DROP FUNCTION telemetry_counter_increment(double precision, double precision, double precision, double precision)`,
    );
    await queryRunner.query(
      `DROP FUNCTION telemetry_power_increment(double precision, double precision, double precision, double precision)`,
    );
    await queryRunner.query(`SET LOCAL work_mem = '64MB'`);
    const partitions: Array<{ name: string }> = await queryRunner.query(
      `SELECT inhrelid::regclass::text AS name FROM pg_inherits
        WHERE inhparent = 'telemetry'::regclass ORDER BY 1`,
    );
    for (const { name } of partitions) {
      await queryRunner.query(
        `INSERT INTO telemetry_hourly SELECT ${OLD_HOURLY_AGGREGATES} FROM ${name} GROUP BY 1, 2 ORDER BY 1, 2`,
      );
    }
    await queryRunner.query(`ANALYZE telemetry_hourly`);
  }
}
