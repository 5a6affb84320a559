import { markup } from './markup';

/**
 * Advance widths of Verdana at 11px (the badge's font, as shields.io's badges use), in pixels,
 * for printable ASCII from space (0x20) to tilde (0x7e). Rounded from the font's metrics: no
 * font is read at run time, so a viewer with another font gets a box a pixel or two off.
 */
// prettier-ignore
const VERDANA_11PX = [
  3.9, 4.3, 5.1, 9.0, 7.0, 11.8, 8.0, 3.0, 5.0, 5.0, 7.0, 9.0, 4.0, 5.0, 4.0, 5.0, // space to /
  7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 5.0, 5.0, 9.0, 9.0, 9.0, 6.0, // 0 to ?
  11.0, 7.5, 7.5, 7.7, 8.5, 7.0, 6.3, 8.5, 8.3, 4.6, 5.0, 7.7, 6.1, 9.4, 8.2, 8.7, // @ to O
  6.7, 8.7, 7.6, 7.5, 6.7, 8.1, 7.5, 10.9, 7.5, 6.7, 7.5, 5.0, 5.0, 5.0, 9.0, 7.0, // P to _
  7.0, 6.6, 6.9, 5.7, 6.9, 6.6, 3.9, 6.9, 7.0, 3.0, 3.8, 6.4, 3.0, 10.7, 7.0, 6.7, // ` to o
  6.9, 6.9, 4.7, 5.7, 4.3, 7.0, 6.4, 9.0, 6.4, 6.4, 5.6, 7.0, 5.0, 7.0, 9.0, // p to ~
];
/** Wider than most Latin letters: a character missing from the table never overflows its box. */
const UNKNOWN_WIDTH = 8.0;
/** CJK and other full-width characters take about a full em. */
const WIDE_WIDTH = 11.0;

/** The width of `text` in Verdana 11px, roughly, without a font. */
export function textWidth(text: string): number {
  let width = 0;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code >= 0x20 && code <= 0x7e) width += VERDANA_11PX[code - 0x20];
    else if (code >= 0x2e80) width += WIDE_WIDTH;
    else width += UNKNOWN_WIDTH;
  }
  return Math.round(width * 10) / 10;
}

export const BADGE_COLOURS = {
  label: '#555',
  producing: '#4c1',
  idle: '#007ec6',
  offline: '#9f9f9f',
  notFound: '#e05d44',
} as const;

/** Space on each side of a text in its half of the badge. */
const PADDING = 6;

/**
 * A flat badge in the shields.io style: `label` on grey, `value` on `colour`. Texts are
 * escaped; colours come from `BADGE_COLOURS` only.
 */
export function renderBadge(label: string, value: string, colour: string): string {
  const labelWidth = Math.ceil(textWidth(label) + 2 * PADDING);
  const valueWidth = Math.ceil(textWidth(value) + 2 * PADDING);
  const width = labelWidth + valueWidth;
  const labelX = labelWidth / 2;
  const valueX = labelWidth + valueWidth / 2;
  const text = `${label}: ${value}`;
  return markup`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${text}"><title>${text}</title><linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient><clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)"><rect width="${labelWidth}" height="20" fill="${BADGE_COLOURS.label}"/><rect x="${labelWidth}" width="${valueWidth}" height="20" fill="${colour}"/><rect width="${width}" height="20" fill="url(#s)"/></g><g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11"><text x="${labelX}" y="15" fill="#010101" fill-opacity=".3">${label}</text><text x="${labelX}" y="14">${label}</text><text x="${valueX}" y="15" fill="#010101" fill-opacity=".3">${value}</text><text x="${valueX}" y="14">${value}</text></g></svg>`
    .text;
}
