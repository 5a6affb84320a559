import { attachmentDisposition, exportFileName } from './export-file-name';

const NOW = new Date('2026-06-01T23:30:00Z');

describe('export file names', () => {
  it.each([
    ['Roof "A"/B ✓', 'export_Roof__A__B___2026-06-01.csv'],
    ['Garage-West_2', 'export_Garage-West_2_2026-06-01.csv'],
    ['Dach Süd', 'export_Dach_Süd_2026-06-01.csv'],
    ['Dach Su\u0308d', 'export_Dach_Süd_2026-06-01.csv'], // composed first
    ['a.b\\c:d*e?f<g>h|i', 'export_a_b_c_d_e_f_g_h_i_2026-06-01.csv'],
    ['Sun 🌞', 'export_Sun___2026-06-01.csv'], // one _ per character, not per UTF-16 unit
    ['../../etc/passwd', 'export_______etc_passwd_2026-06-01.csv'],
    ['x'.repeat(150), `export_${'x'.repeat(100)}_2026-06-01.csv`],
  ])('%j → %s', (name, expected) => {
    expect(exportFileName(name, NOW, 'csv')).toBe(expected);
  });

  it('the date is the UTC day of the export; Excel files end in .xlsx', () => {
    expect(exportFileName('Roof', new Date('2026-06-01T00:30:00+02:00'), 'xlsx')).toBe(
      'export_Roof_2026-05-31.xlsx',
    );
  });

  it('Content-Disposition: an ASCII stand-in in filename, the UTF-8 name in filename*', () => {
    expect(attachmentDisposition('export_Roof__A__B___2026-06-01.csv')).toBe(
      `attachment; filename="export_Roof__A__B___2026-06-01.csv"; filename*=UTF-8''export_Roof__A__B___2026-06-01.csv`,
    );
    expect(attachmentDisposition('export_Dach_Süd_2026-06-01.xlsx')).toBe(
      `attachment; filename="export_Dach_S_d_2026-06-01.xlsx"; filename*=UTF-8''export_Dach_S%C3%BCd_2026-06-01.xlsx`,
    );
  });
});
