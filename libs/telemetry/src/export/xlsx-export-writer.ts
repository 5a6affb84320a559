import { pipeline, Readable, Writable } from 'node:stream';
import { EnergyReadingsBefore } from '../energy/energy-increments';
import { NUMERIC_FIELDS } from '../telemetry-fields';
import { ChunkedTextEncoder } from './chunked-text-encoder';
import { EXPORT_HEADER, ExportRow, readExportNumbers } from './export-columns';
import { ExportSummary, TelemetryExportSummary } from './telemetry-export-summary';
import { ZipStreamWriter } from './zip-stream-writer';

export interface XlsxExportContext {
  /** The requested range, shown on the Summary sheet. */
  from: Date;
  to: Date;
  truncated: boolean;
  /** Time stamp of the workbook's parts. */
  now: Date;
  /** The energy readings before `from` that the first records count from. */
  readingsBefore: EnergyReadingsBefore;
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const WORKSHEET_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';

/** Cell styles of styles.xml: 0 default, 1 date-time, 2 bold (header rows). */
const DATE_TIME = 1;
const BOLD = 2;

/** The parts around the two sheets: the smallest package Excel, LibreOffice and exceljs open. */
const FIXED_PARTS: readonly [string, string][] = [
  [
    '[Content_Types].xml',
    `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
      `<Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
      `<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
      `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${WORKSHEET_TYPE}"/>` +
      `<Override PartName="/xl/worksheets/sheet2.xml" ContentType="${WORKSHEET_TYPE}"/>` +
      `</Types>`,
  ],
  [
    '_rels/.rels',
    `<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
      `<Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/>` +
      `</Relationships>`,
  ],
  [
    'xl/workbook.xml',
    `<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets>` +
      `<sheet name="Data" sheetId="1" r:id="rId1"/><sheet name="Summary" sheetId="2" r:id="rId2"/>` +
      `</sheets></workbook>`,
  ],
  [
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
      `<Relationship Id="rId1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/>` +
      `<Relationship Id="rId2" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet2.xml"/>` +
      `<Relationship Id="rId3" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/>` +
      `</Relationships>`,
  ],
  [
    'xl/styles.xml',
    `<styleSheet xmlns="${MAIN}">` +
      `<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss.000"/></numFmts>` +
      `<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>` +
      `<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>` +
      `<fills count="2"><fill><patternFill patternType="none"/></fill>` +
      `<fill><patternFill patternType="gray125"/></fill></fills>` +
      `<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
      `<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
      `<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
      `<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
      `<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>` +
      `<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>` +
      `</styleSheet>`,
  ],
];

/** Column letters A, B, ... for the widest sheet. */
const COLUMNS = EXPORT_HEADER.map((_header, index) => columnName(index));
const NUMERIC_FIELD_COUNT = NUMERIC_FIELDS.length;
const FIRST_TEXT_COLUMN = 1 + NUMERIC_FIELD_COUNT;
const MS_PER_DAY = 86_400_000;
/** Day 0 of Excel's 1900 date system, counted from the Unix epoch. */
const EXCEL_EPOCH_DAYS = 25_569;

/**
 * Streams an .xlsx workbook to `destination`: sheet `Data` (header row, one row per record; the
 * timestamp a date-time cell in UTC, numbers as numbers, text as inline text, codes joined with
 * `;`), then sheet `Summary`, whose figures were gathered while the rows went by. Written by hand
 * rather than through a spreadsheet library: the XML of a row is one template string, which is
 * several times faster and, with ZipStreamWriter, waits for the client instead of buffering.
 *
 * Resolves when the workbook is complete. Rejects when the rows fail or the destination closes
 * early (code ERR_STREAM_PREMATURE_CLOSE), after destroying `rows` so that the cursor is closed.
 */
export async function writeXlsxExport(
  rows: Readable,
  destination: Writable,
  context: XlsxExportContext,
): Promise<void> {
  const zip = new ZipStreamWriter(destination, { modified: context.now, level: 1 });
  const summary = new TelemetryExportSummary(context.readingsBefore);
  // The callback form: a failure of `rows` destroys the sheet with it, which fails addEntry.
  const dataSheet = pipeline(rows, new DataSheetEncoder(summary), () => undefined);
  try {
    for (const [name, xml] of FIXED_PARTS) await zip.addEntry(name, XML_DECLARATION + xml);
    await zip.addEntry('xl/worksheets/sheet1.xml', dataSheet);
    await zip.addEntry('xl/worksheets/sheet2.xml', summarySheet(summary.result(), context));
    await zip.finish();
  } catch (error) {
    dataSheet.destroy();
    throw error;
  }
}

/** ExportRows in, the XML of sheet `Data` out; every record also goes into `summary`. */
class DataSheetEncoder extends ChunkedTextEncoder<ExportRow> {
  private rowNumber = 1;
  private readonly values = new Float64Array(NUMERIC_FIELDS.length);
  private readonly texts = new Array<string>(NUMERIC_FIELDS.length);

  constructor(private readonly summary: TelemetryExportSummary) {
    const widths = EXPORT_HEADER.map((header, index) => (index === 0 ? 24 : Math.max(12, header.length + 2)));
    super(sheetStart(widths, true) + headerRow(EXPORT_HEADER), SHEET_END);
  }

  protected override encode(row: ExportRow): string {
    readExportNumbers(row[1], this.values, this.texts);
    this.summary.add(row[0], this.values);
    return this.dataRow(++this.rowNumber, row);
  }

  private dataRow(rowNumber: number, row: ExportRow): string {
    let xml = `<row r="${rowNumber}">${dateCell(`A${rowNumber}`, row[0])}`;
    for (let index = 0; index < NUMERIC_FIELD_COUNT; index++) {
      // The database's shortest round-trip digits are valid XML Schema doubles as they are.
      if (Number.isFinite(this.values[index])) {
        xml += `<c r="${COLUMNS[1 + index]}${rowNumber}"><v>${this.texts[index]}</v></c>`;
      }
    }
    for (let index = 2; index < row.length; index++) {
      const text = row[index] as string | null;
      if (text) xml += textCell(`${COLUMNS[FIRST_TEXT_COLUMN + index - 2]}${rowNumber}`, text);
    }
    return `${xml}</row>`;
  }
}

function summarySheet(summary: ExportSummary, context: XlsxExportContext): string {
  const date = (value: Date | null) => (reference: string) =>
    value === null ? '' : dateCell(reference, value.getTime());
  const number = (value: number | null) => (reference: string) =>
    value === null ? '' : numberCell(reference, value);
  const text = (value: string | null) => (reference: string) =>
    value === null ? '' : textCell(reference, value);
  const lines: [string, (reference: string) => string][] = [
    ['Range start', date(context.from)],
    ['Range end (exclusive)', date(context.to)],
    ['Records', number(summary.recordCount)],
    ['Truncated', (reference) => `<c r="${reference}" t="b"><v>${context.truncated ? 1 : 0}</v></c>`],
    ['First timestamp', date(summary.firstTimestamp)],
    ['Last timestamp', date(summary.lastTimestamp)],
    ['Energy produced (kWh)', number(summary.energyProduced)],
    ['Energy produced from', text(summary.energyProducedMethod)],
    ['Energy consumed (kWh)', number(summary.energyConsumed)],
    ['Energy consumed from', text(summary.energyConsumedMethod)],
  ];
  let xml = sheetStart([24, 24, 12, 16, 14, 14], false);
  let rowNumber = 0;
  for (const [label, cell] of lines) {
    rowNumber++;
    xml += `<row r="${rowNumber}">${textCell(`A${rowNumber}`, label, BOLD)}${cell(`B${rowNumber}`)}</row>`;
  }
  rowNumber += 2;
  xml += headerRow(['Field', 'Unit', 'Count', 'Average', 'Minimum', 'Maximum'], rowNumber);
  for (const field of summary.fields) {
    rowNumber++;
    xml += `<row r="${rowNumber}">${textCell(`A${rowNumber}`, field.field)}`;
    if (field.unit) xml += textCell(`B${rowNumber}`, field.unit);
    xml += numberCell(`C${rowNumber}`, field.count);
    [field.average, field.minimum, field.maximum].forEach((value, index) => {
      if (value !== null) xml += numberCell(`${COLUMNS[3 + index]}${rowNumber}`, value);
    });
    xml += '</row>';
  }
  return xml + SHEET_END;
}

function sheetStart(widths: readonly number[], freezeHeader: boolean): string {
  const pane = freezeHeader
    ? '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>'
    : '';
  const columns = widths
    .map((width, index) => `<col min="${index + 1}" max="${index + 1}" width="${width}" customWidth="1"/>`)
    .join('');
  return (
    `${XML_DECLARATION}<worksheet xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}">` +
    `<sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews>` +
    `<cols>${columns}</cols><sheetData>`
  );
}

const SHEET_END = '</sheetData></worksheet>';

function headerRow(labels: readonly string[], rowNumber = 1): string {
  const cells = labels.map((label, index) => textCell(`${COLUMNS[index]}${rowNumber}`, label, BOLD)).join('');
  return `<row r="${rowNumber}">${cells}</row>`;
}

function numberCell(reference: string, value: number): string {
  // XML Schema doubles have no Infinity; the normalization never stores one, but be safe.
  return Number.isFinite(value) ? `<c r="${reference}"><v>${value}</v></c>` : '';
}

function dateCell(reference: string, epochMs: number): string {
  return `<c r="${reference}" s="${DATE_TIME}"><v>${epochMs / MS_PER_DAY + EXCEL_EPOCH_DAYS}</v></c>`;
}

function textCell(reference: string, text: string, style = 0): string {
  const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
  const styled = style ? ` s="${style}"` : '';
  return `<c r="${reference}"${styled} t="inlineStr"><is><t${space}>${xmlText(text)}</t></is></c>`;
}

/** Characters XML 1.0 cannot hold (controls, lone surrogates, U+FFFE/F) are dropped. */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const XML_SPECIAL = /[&<>]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function xmlText(text: string): string {
  return text.replace(NOT_XML, '').replace(XML_SPECIAL, (character) => ENTITIES[character]);
}

function columnName(index: number): string {
  let name = '';
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  }
  return name;
}
