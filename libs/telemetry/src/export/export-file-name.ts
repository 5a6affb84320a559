export type ExportFormat = 'csv' | 'xlsx';

const MAX_NAME_CHARS = 100;
const UNSAFE = /[^\p{L}\p{M}\p{N}_-]/gu;
const NON_ASCII = /[^\x20-\x7e]/g;

/**
 * `export_{name}_{date}.{csv|xlsx}`: `{name}` is the source's name with every
 * character other than a letter (with its marks), a digit, `-` or `_` replaced by `_` (letters of any script are
 * kept, NFC-composed), at most 100 characters; `{date}` is the UTC day of the export.
 */
export function exportFileName(sourceName: string, now: Date, format: ExportFormat): string {
  const safe = [...sourceName.normalize('NFC').replace(UNSAFE, '_')].slice(0, MAX_NAME_CHARS).join('');
  return `export_${safe}_${now.toISOString().slice(0, 10)}.${format}`;
}

/**
 * `Content-Disposition` for a download (RFC 6266): `filename` holds an ASCII stand-in for old
 * clients, `filename*` the exact UTF-8 name (RFC 8187). Meant for names from exportFileName,
 * which contain no quote, backslash or separator to escape.
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(NON_ASCII, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
