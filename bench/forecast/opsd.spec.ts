import { dataErrorMessage } from './spec-support';
import { householdMeters, householdSeries, parseOpsd } from './opsd';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const START = Date.parse('2016-03-01T00:00:00Z');
const R4 = 'DE_KN_residential4';

/** One row: its `utc_timestamp`, the local stamp's offset (`+0100` unless said) and a cell per meter. */
interface Row {
  at: number;
  offset?: '+0100' | '+0200';
  cells: (number | '')[];
}

/** An OPSD household file with the stamps first, then the building's meters in the order given. */
function opsd(meters: string[], rows: Row[]): string {
  const lines = [['utc_timestamp', 'cet_cest_timestamp', ...meters].join(',')];
  for (const { at, offset = '+0100', cells } of rows) {
    const utc = `${new Date(at).toISOString().slice(0, 19)}Z`;
    const hours = offset === '+0200' ? 2 : 1;
    const local = `${new Date(at + hours * HOUR_MS).toISOString().slice(0, 19)}${offset}`;
    lines.push([utc, local, ...cells].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Rows `minutes` apart from START, one per list of cumulative readings. */
const readings = (minutes: number, cells: (number | '')[][]): Row[] =>
  cells.map((each, index) => ({ at: START + index * minutes * MINUTE_MS, cells: each }));

/** Cumulative readings of one meter from the energy of each interval, kWh, starting at `base`. */
const cumulative = (energies: number[], base = 100): number[] =>
  energies.reduce((sums, energy) => [...sums, sums[sums.length - 1] + energy], [base]);

const hour = (index: number) => START + index * HOUR_MS;

describe('householdMeters', () => {
  it("finds a building's meters by their names", () => {
    const names = [
      'utc_timestamp',
      `${R4}_grid_export`,
      `${R4}_grid_import`,
      `${R4}_pv_facade`,
      `${R4}_pv_roof`,
      `${R4}_storage_charge`,
      `${R4}_storage_decharge`,
      `${R4}_dishwasher`,
      'DE_KN_residential1_pv',
    ];
    expect(householdMeters(names, R4, 'household.csv')).toEqual({
      import: `${R4}_grid_import`,
      export: `${R4}_grid_export`,
      pv: [`${R4}_pv_facade`, `${R4}_pv_roof`],
      charge: `${R4}_storage_charge`,
      discharge: `${R4}_storage_decharge`,
    });
  });

  it('takes a building with PV meters only, whose load cannot be told', () => {
    const names = ['utc_timestamp', `${R4}_pv_1`, `${R4}_pv_2`, 'DE_KN_residential1_grid_import'];
    expect(householdMeters(names, R4, 'household.csv')).toEqual({
      import: null,
      export: null,
      pv: [`${R4}_pv_1`, `${R4}_pv_2`],
      charge: null,
      discharge: null,
    });
  });

  it('refuses an unknown prefix, listing the buildings that have a grid_import or PV meter', () => {
    const names = [
      'utc_timestamp',
      'DE_KN_residential1_grid_import',
      'DE_KN_residential1_pv',
      'DE_KN_residential3_pv',
      `${R4}_grid_import`,
    ];
    expect(dataErrorMessage(() => householdMeters(names, 'DE_KN_residential9', 'household.csv'))).toBe(
      'household.csv: no meter DE_KN_residential9_grid_import nor DE_KN_residential9_pv; the buildings with a ' +
        `grid or PV meter are DE_KN_residential1, DE_KN_residential3, ${R4} (--opsd-prefix names one)`,
    );
    expect(dataErrorMessage(() => householdMeters(['utc_timestamp'], R4, 'household.csv'))).toMatch(
      /the buildings with a grid or PV meter are none/,
    );
  });
});

describe('parseOpsd and householdSeries: meters', () => {
  it('turns hourly readings of import, export and PV into PV and load in W', () => {
    // import 10 → 10.5 → 11.5, export 2 → 3 → 3, PV 5 → 6.5 → 7 (kWh).
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv`],
      readings(60, [
        [10, 2, 5],
        [10.5, 3, 6.5],
        [11.5, 3, 7],
      ]),
    );
    const file = parseOpsd(text, R4, 'household.csv');
    expect(file.rows).toBe(3);
    expect(file.step).toBe(HOUR_MS);
    expect(file.noLoad).toBeNull();
    const series = householdSeries(file, false);
    expect(series.pv).toEqual(
      new Map([
        [hour(0), 1500],
        [hour(1), 500],
      ]),
    );
    // Load: 0.5 − 1 + 1.5 = 1 kWh, then 1 − 0 + 0.5 = 1.5 kWh.
    expect(series.load).toEqual(
      new Map([
        [hour(0), 1000],
        [hour(1), 1500],
      ]),
    );
    expect(series.negativeLoadHours).toBe(0);
    expect(series.shiftedRows).toBe(0);
  });

  it('sums the PV meters of a building that has several', () => {
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv_facade`, `${R4}_pv_roof`],
      readings(60, [
        [10, 2, 1, 4],
        [10, 3, 1.25, 5.5],
      ]),
    );
    const series = householdSeries(parseOpsd(text, R4), false);
    // PV 0.25 + 1.5 kWh; load 0 − 1 + 1.75.
    expect(series.pv!.get(hour(0))).toBe(1750);
    expect(series.load!.get(hour(0))).toBe(750);
  });

  it('has no load for PV without an export meter, and says why', () => {
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_pv`],
      readings(60, [
        [10, 5],
        [10.5, 6.5],
      ]),
    );
    const file = parseOpsd(text, R4);
    expect(file.noLoad).toBe(
      `${R4} has PV but no grid_export meter: what it used cannot be told from the grid import, so only its PV is scored`,
    );
    const series = householdSeries(file, false);
    expect(series.load).toBeNull();
    expect(series.pv!.get(hour(0))).toBe(1500);
  });

  it('has no load for PV without any grid meter, and says why', () => {
    const text = opsd([`${R4}_pv`], readings(60, [[5], [6.5]]));
    const file = parseOpsd(text, R4);
    expect(file.noLoad).toBe(
      `${R4} has PV but no grid_import meter: what it used cannot be told, so only its PV is scored`,
    );
    const series = householdSeries(file, false);
    expect(series.load).toBeNull();
    expect(series.pv!.get(hour(0))).toBe(1500);
  });

  it('has no load for a battery without an export meter, nor for half a battery', () => {
    const battery = opsd(
      [`${R4}_grid_import`, `${R4}_storage_charge`, `${R4}_storage_decharge`],
      readings(60, [
        [10, 1, 1],
        [11, 2, 1],
      ]),
    );
    expect(parseOpsd(battery, R4).noLoad).toMatch(/has a battery but no grid_export meter/);
    const half = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_storage_charge`],
      readings(60, [
        [10, 1, 1],
        [11, 1, 2],
      ]),
    );
    const file = parseOpsd(half, R4);
    expect(file.noLoad).toMatch(
      /has one of storage_charge and storage_decharge: the battery's balance is unknown/,
    );
    expect(householdSeries(file, false).load).toBeNull();
  });

  it('takes the grid import as the load of a building without PV', () => {
    const text = opsd([`${R4}_grid_import`], readings(60, [[10], [10.75], [11.25]]));
    const series = householdSeries(parseOpsd(text, R4), false);
    expect(series.pv).toBeNull();
    expect(series.load).toEqual(
      new Map([
        [hour(0), 750],
        [hour(1), 500],
      ]),
    );
  });

  it("adds a battery's discharge to the load and takes its charge off", () => {
    // import +1, export +0.5, PV +2, charge +1.25, discharge +0.25 (kWh).
    const text = opsd(
      [
        `${R4}_grid_import`,
        `${R4}_grid_export`,
        `${R4}_pv`,
        `${R4}_storage_charge`,
        `${R4}_storage_decharge`,
      ],
      readings(60, [
        [10, 2, 5, 3, 1],
        [11, 2.5, 7, 4.25, 1.25],
      ]),
    );
    const series = householdSeries(parseOpsd(text, R4), false);
    expect(series.load!.get(hour(0))).toBe(1000 * (1 - 0.5 + 2 + 0.25 - 1.25));
    expect(series.pv!.get(hour(0))).toBe(2000);
  });

  it('clips hours of negative load to 0 and counts them', () => {
    // The export meter read later than the others: 1 kWh out, only 0.5 in from the PV.
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv`],
      readings(60, [
        [10, 2, 5],
        [10, 3, 5.5],
        [10.5, 3, 6],
      ]),
    );
    const series = householdSeries(parseOpsd(text, R4), false);
    expect(series.load!.get(hour(0))).toBe(0);
    expect(series.load!.get(hour(1))).toBe(1000);
    expect(series.negativeLoadHours).toBe(1);
    // No meter fell: the negative hour is timing between meters, not a reset.
    expect(parseOpsd(text, R4).notes).toEqual([]);
  });

  it('leaves a reading with an empty cell out of the series it belongs to only', () => {
    // The import meter is empty at 01:00: the load's 1 + 3 kWh from 00:00 to 02:00 are spread over
    // both hours; the PV, read at 01:00, keeps its hours apart.
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv`],
      readings(60, [
        [10, 0, 5],
        ['', 0, 6],
        [12, 0, 7],
        [12.5, 0, 8],
      ]),
    );
    const series = householdSeries(parseOpsd(text, R4), false);
    expect(series.load).toEqual(
      new Map([
        [hour(0), 2000],
        [hour(1), 2000],
        [hour(2), 1500],
      ]),
    );
    expect(series.pv).toEqual(
      new Map([
        [hour(0), 1000],
        [hour(1), 1000],
        [hour(2), 1000],
      ]),
    );
  });

  it('leaves the interval across a reset of the export meter out of the load, and says so', () => {
    // The export meter is replaced between 01:00 and 02:00: it reads 3.5, then 0.25.
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv`],
      readings(60, [
        [10, 3, 5],
        [10.5, 3.5, 6],
        [11, 0.25, 7],
        [11.5, 0.5, 8],
      ]),
    );
    const file = parseOpsd(text, R4);
    expect(file.resets).toEqual(new Map([[`${R4}_grid_export`, 1]]));
    expect(file.notes).toEqual([
      `${R4}_grid_export reset 1 time (its reading fell): the interval across it left out`,
    ]);
    const series = householdSeries(file, false);
    expect(series.load).toEqual(
      new Map([
        [hour(0), 1000],
        [hour(2), 1250],
      ]),
    );
    expect(series.pv).toEqual(
      new Map([
        [hour(0), 1000],
        [hour(1), 1000],
        [hour(2), 1000],
      ]),
    );
    expect(series.negativeLoadHours).toBe(0);
  });

  it('leaves the interval across a reset of a PV meter out of both PV and load, counting each reset', () => {
    // The roof meter wraps twice (7 → 1, 3 → 0.5); the facade meter and the grid meters count on.
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv_facade`, `${R4}_pv_roof`],
      readings(60, [
        [10, 2, 1, 6],
        [10, 3, 1.5, 7],
        [10, 4, 2, 1],
        [10, 4, 2.5, 3],
        [10, 4, 3, 0.5],
        [10, 4, 3.5, 1],
      ]),
    );
    const file = parseOpsd(text, R4);
    expect(file.resets).toEqual(new Map([[`${R4}_pv_roof`, 2]]));
    expect(file.notes).toEqual([
      `${R4}_pv_roof reset 2 times (its reading fell): the intervals across them left out`,
    ]);
    const series = householdSeries(file, false);
    expect([...series.pv!.keys()]).toEqual([hour(0), hour(2), hour(4)]);
    expect(series.pv!.get(hour(2))).toBe(2500);
    expect([...series.load!.keys()]).toEqual([hour(0), hour(2), hour(4)]);
    expect(series.load!.get(hour(0))).toBe(500);
  });

  it('leaves a reset on a row with another meter empty out up to the next full reading', () => {
    // Import falls at 01:00, where the PV is empty: 00:00–02:00 is one interval for the load,
    // and it spans the reset.
    const text = opsd(
      [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv`],
      readings(60, [
        [10, 0, 5],
        [0.5, 0, ''],
        [1.5, 0, 7],
        [2, 0, 8],
      ]),
    );
    const file = parseOpsd(text, R4);
    expect(file.resets).toEqual(new Map([[`${R4}_grid_import`, 1]]));
    const series = householdSeries(file, false);
    expect(series.load).toEqual(new Map([[hour(2), 1500]]));
    expect(series.pv!.get(hour(0))).toBe(1000);
  });

  it('refuses a stamp it cannot read', () => {
    const text = `utc_timestamp,cet_cest_timestamp,${R4}_grid_import\nyesterday,,10\n`;
    expect(dataErrorMessage(() => parseOpsd(text, R4, 'household.csv'))).toMatch(
      /household\.csv: bad time yesterday/,
    );
  });
});

describe('householdSeries: 15-minute readings', () => {
  // Energy per quarter hour, kWh: hour 0 takes 0.1 + 0.2 + 0.3 + 0.4, hour 1 0.5 + 0.6 + 0.7 + 0.8, hour 2 0.9 × 4.
  const quarters = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.9, 0.9, 0.9];
  const meter = cumulative(quarters);
  /** The import meter's readings every 15 minutes from START, without those at the indexes given. */
  const file = (...missing: number[]) =>
    parseOpsd(
      opsd(
        [`${R4}_grid_import`],
        readings(
          15,
          meter.map((kwh) => [kwh]),
        ).filter((_, index) => !missing.includes(index)),
      ),
      R4,
    );

  it('sums the four quarters of an hour', () => {
    const series = householdSeries(file(), false);
    expect(file().step).toBe(15 * MINUTE_MS);
    expect([...series.load!.keys()]).toEqual([hour(0), hour(1), hour(2)]);
    expect(series.load!.get(hour(0))).toBeCloseTo(1000, 9);
    expect(series.load!.get(hour(1))).toBeCloseTo(2600, 9);
    expect(series.load!.get(hour(2))).toBeCloseTo(3600, 9);
  });

  it('spreads the energy over a missing reading evenly, across the hour it ends if it must', () => {
    // Without 00:30 the hour keeps its energy; without 01:00 the 0.4 + 0.5 kWh of 00:45–01:15 split half and half.
    const inside = householdSeries(file(2), false);
    expect(inside.load!.get(hour(0))).toBeCloseTo(1000, 9);
    expect(inside.load!.get(hour(1))).toBeCloseTo(2600, 9);
    const boundary = householdSeries(file(4), false);
    expect(boundary.load!.get(hour(0))).toBeCloseTo(1000 * (0.1 + 0.2 + 0.3 + 0.45), 9);
    expect(boundary.load!.get(hour(1))).toBeCloseTo(1000 * (0.45 + 0.6 + 0.7 + 0.8), 9);
    expect(boundary.load!.get(hour(2))).toBeCloseTo(3600, 9);
  });

  it('leaves the time between readings more than two intervals apart out, keeping an hour three quarters covered', () => {
    // Without 01:00 and 01:15, 00:45–01:30 is a gap: hour 0 has 45 minutes, hour 1 only 30.
    const series = householdSeries(file(4, 5), false);
    expect(series.load!.get(hour(0))).toBeCloseTo((1000 * (0.1 + 0.2 + 0.3)) / 0.75, 9);
    expect(series.load!.has(hour(1))).toBe(false);
    expect(series.load!.get(hour(2))).toBeCloseTo(3600, 9);
  });
});

describe('householdSeries: the CEST shift', () => {
  // Labelled 00:00 (+0100 local), then 01:00, 02:00 and 03:00 (+0200): shifted, 01:00 falls on 00:00.
  const text = opsd(
    [`${R4}_grid_import`, `${R4}_grid_export`, `${R4}_pv`],
    [
      { at: hour(0), cells: [10, 0, 0] },
      { at: hour(1), offset: '+0200', cells: [10, 0, 1] },
      { at: hour(2), offset: '+0200', cells: [10, 0, 3] },
      { at: hour(3), offset: '+0200', cells: [10, 0, 6] },
    ],
  );
  const file = parseOpsd(text, R4);

  it('takes the stamps as they are without it', () => {
    const series = householdSeries(file, false);
    expect(series.shiftedRows).toBe(0);
    expect(series.pv).toEqual(
      new Map([
        [hour(0), 1000],
        [hour(1), 2000],
        [hour(2), 3000],
      ]),
    );
  });

  it('moves the rows stamped +0200 an hour earlier, carrying the energy of colliding stamps into the next interval', () => {
    const series = householdSeries(file, true);
    expect(series.shiftedRows).toBe(3);
    // The 1 kWh between the two 00:00 stamps joins the 2 kWh to 01:00: the 6 kWh are all there.
    expect(series.pv).toEqual(
      new Map([
        [hour(0), 3000],
        [hour(1), 3000],
      ]),
    );
    expect([...series.pv!.values()].reduce((sum, watts) => sum + watts, 0)).toBe(6000);
    expect(series.load).toEqual(
      new Map([
        [hour(0), 3000],
        [hour(1), 3000],
      ]),
    );
  });
});
