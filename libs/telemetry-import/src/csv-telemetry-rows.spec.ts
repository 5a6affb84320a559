import { BadRequestError } from '@solar/core';
import { CsvTelemetryHeader, ImportMessages } from './csv-telemetry-rows';

describe('CsvTelemetryHeader', () => {
  it.each([
    [['solarPower', 'soc'], ImportMessages.noTimestampColumn],
    [['time', 'colour', ''], ImportMessages.noFieldColumn],
    [['ts', 'SOC', 'soc'], ImportMessages.duplicateColumn('soc')],
  ])('refuses the header %j', (header, message) => {
    expect(() => new CsvTelemetryHeader(header)).toThrow(new BadRequestError(message));
  });

  it('refuses a time zone IANA does not know', () => {
    expect(() => new CsvTelemetryHeader(['ts', 'soc'], 'Europe/Atlantis')).toThrow(
      new BadRequestError(ImportMessages.invalidTimeZone),
    );
  });

  it('matches aliases case-insensitively and keeps the columns no field reads', () => {
    const header = new CsvTelemetryHeader([' DateTime ', 'PV_POWER', 'Battery_Level', 'site', '']);
    expect(header.ignoredColumns).toEqual(['site']);
    expect(header.payloadOf(['2025-01-01T00:00:00Z', '12', '', 'north', 'x'])).toEqual({
      DateTime: '2025-01-01T00:00:00Z',
      PV_POWER: '12',
      site: 'north',
    });
  });

  it('refuses rows of another width and rows without a timestamp', () => {
    const header = new CsvTelemetryHeader(['timestamp', 'soc']);
    expect(header.payloadOf(['2025-01-01T00:00:00Z'])).toBe(ImportMessages.columnCount(2, 1));
    expect(header.payloadOf([' ', '50'])).toBe(ImportMessages.missingTimestamp);
  });

  it.each([
    ['2025-01-15 12:00:00', '2025-01-15T12:00:00.000+01:00'],
    ['2025-07-01T12:00', '2025-07-01T12:00:00.000+02:00'],
    ['2025-07-01t12:00:00.250', '2025-07-01T12:00:00.250+02:00'],
    ['2025-07-01', '2025-07-01T00:00:00.000+02:00'],
    // The clocks skipped 02:00-03:00: forward by the gap. They passed 02:00-03:00 twice: the second time.
    ['2025-03-30 02:30', '2025-03-30T03:30:00.000+02:00'],
    ['2025-10-26 02:30', '2025-10-26T02:30:00.000+01:00'],
    // Already absolute, or for the normalizer to refuse: as they are.
    ['2025-07-01T12:00:00Z', '2025-07-01T12:00:00Z'],
    ['2025-07-01T12:00:00+05:00', '2025-07-01T12:00:00+05:00'],
    ['1751371200', '1751371200'],
    ['2025-02-30 12:00', '2025-02-30 12:00'],
  ])('reads %s in Europe/Berlin as %s', (local, absolute) => {
    const header = new CsvTelemetryHeader(['time', 'soc'], 'Europe/Berlin');
    expect(header.payloadOf([local, '50'])).toEqual({ time: absolute, soc: '50' });
  });
});
