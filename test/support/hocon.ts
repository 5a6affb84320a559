/**
 * The part of HOCON that EMQX's configuration uses: objects (with or without `=`/`:` before a
 * brace), arrays, quoted and unquoted strings, dotted keys, `#` and `//` comments, and an object
 * given twice merging into one. Scalars stay strings (`"18083"`, `"true"`); `${...}` is kept as
 * written, as EMQX keeps its request placeholders. Anything else (includes, substitutions,
 * `+=`, triple quotes) is not read.
 */
export type HoconValue = string | HoconValue[] | HoconObject;
export interface HoconObject {
  [key: string]: HoconValue;
}

export function parseHocon(text: string): HoconObject {
  const reader = new HoconReader(text);
  const root = reader.fields(undefined);
  reader.end();
  return root;
}

/** One value on its own, as an `EMQX_*` environment override gives it. */
export function parseHoconValue(text: string): HoconValue {
  const reader = new HoconReader(text);
  const value = reader.value();
  reader.end();
  return value;
}

export function isHoconObject(value: HoconValue | undefined): value is HoconObject {
  return typeof value === 'object' && !Array.isArray(value);
}

/** `a.b.c` in an object, array elements by 1-based index (as EMQX numbers them); undefined if absent. */
export function hoconAt(root: HoconValue, path: string): HoconValue | undefined {
  let value: HoconValue | undefined = root;
  for (const key of path.split('.')) {
    if (Array.isArray(value)) value = /^\d+$/.test(key) ? value[Number(key) - 1] : undefined;
    else if (isHoconObject(value)) value = value[key];
    else return undefined;
  }
  return value;
}

/** A scalar at `path`; undefined if absent or not a scalar. */
export function hoconString(root: HoconValue, path: string): string | undefined {
  const value = hoconAt(root, path);
  return typeof value === 'string' ? value : undefined;
}

function merge(target: HoconObject, key: string, value: HoconValue): void {
  const existing = target[key];
  if (isHoconObject(existing) && isHoconObject(value)) {
    for (const [inner, innerValue] of Object.entries(value)) merge(existing, inner, innerValue);
  } else {
    target[key] = value;
  }
}

class HoconReader {
  private position = 0;

  constructor(private readonly text: string) {}

  /** Fields up to `close` (or the end of the text for the root object). */
  fields(close: '}' | undefined): HoconObject {
    const object: HoconObject = {};
    for (;;) {
      this.skip({ newlines: true, commas: true });
      const next = this.peek();
      if (next === undefined) {
        if (close) this.fail(`missing "${close}"`);
        return object;
      }
      if (next === close) {
        this.position += 1;
        return object;
      }
      const path = this.key();
      this.skip({ newlines: false, commas: false });
      if (this.peek() === '=' || this.peek() === ':') {
        this.position += 1;
        this.skip({ newlines: true, commas: false });
      } else if (this.peek() !== '{') {
        this.fail(`expected "=", ":" or "{" after ${path.join('.')}`);
      }
      const value = this.value();
      let target = object;
      for (const key of path.slice(0, -1)) {
        if (!isHoconObject(target[key])) target[key] = {};
        target = target[key];
      }
      merge(target, path[path.length - 1], value);
    }
  }

  value(): HoconValue {
    this.skip({ newlines: true, commas: false });
    const next = this.peek();
    if (next === '{') {
      this.position += 1;
      return this.fields('}');
    }
    if (next === '[') {
      this.position += 1;
      return this.elements();
    }
    if (next === '"') return this.quoted();
    return this.unquoted();
  }

  end(): void {
    this.skip({ newlines: true, commas: false });
    if (this.peek() !== undefined) this.fail('unexpected text');
  }

  private elements(): HoconValue[] {
    const values: HoconValue[] = [];
    for (;;) {
      this.skip({ newlines: true, commas: true });
      if (this.peek() === undefined) this.fail('missing "]"');
      if (this.peek() === ']') {
        this.position += 1;
        return values;
      }
      values.push(this.value());
    }
  }

  private key(): string[] {
    const path: string[] = [];
    for (;;) {
      if (this.peek() === '"') {
        path.push(this.quoted());
      } else {
        const match = /^[^\s.=:{}[\],#"]+/.exec(this.text.slice(this.position));
        if (!match) this.fail('expected a key');
        path.push(match[0]);
        this.position += match[0].length;
      }
      if (this.peek() !== '.') return path;
      this.position += 1;
    }
  }

  private quoted(): string {
    const match = /^"(?:[^"\\\n]|\\.)*"/.exec(this.text.slice(this.position));
    if (!match) this.fail('unterminated string');
    this.position += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  /** Up to the end of the line, a separator, a closing bracket or a comment. */
  private unquoted(): string {
    const rest = this.text.slice(this.position);
    const length = rest.search(/[\n,}\]#]|\/\//);
    const raw = length === -1 ? rest : rest.slice(0, length);
    if (raw.trim() === '') this.fail('expected a value');
    this.position += raw.length;
    return raw.trim();
  }

  private skip(what: { newlines: boolean; commas: boolean }): void {
    for (;;) {
      const rest = this.text.slice(this.position);
      const blank = what.newlines ? /^[ \t\r\n]+/ : /^[ \t\r]+/;
      const match = blank.exec(rest) ?? /^(?:#|\/\/)[^\n]*/.exec(rest);
      if (match) {
        this.position += match[0].length;
      } else if (what.commas && rest.startsWith(',')) {
        this.position += 1;
      } else {
        return;
      }
    }
  }

  private peek(): string | undefined {
    return this.position < this.text.length ? this.text[this.position] : undefined;
  }

  private fail(problem: string): never {
    const line = this.text.slice(0, this.position).split('\n').length;
    throw new Error(`HOCON, line ${line}: ${problem}`);
  }
}
