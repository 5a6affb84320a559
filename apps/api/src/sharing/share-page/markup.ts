/**
 * Markup built by the `markup` tag: every interpolated value is escaped unless it is `Markup`
 * itself, so text an owner controls (a source's name, its description) can never become markup.
 */
export class Markup {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** A value `markup` accepts: text (escaped), a number, nothing, markup, or a list of those. */
export type Interpolated = string | number | null | undefined | false | Markup | readonly Interpolated[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text made safe for HTML and XML content and for quoted attribute values. */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]);
}

function render(value: Interpolated): string {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeMarkup(String(value));
}

/**
 * Template tag for HTML and SVG: the literal parts are markup, the interpolations are escaped.
 * Not named `html`: Prettier would reformat such templates, and whitespace in text is content.
 */
export function markup(strings: TemplateStringsArray, ...values: Interpolated[]): Markup {
  let text = strings[0];
  for (let index = 0; index < values.length; index++) text += render(values[index]) + strings[index + 1];
  return new Markup(text);
}
