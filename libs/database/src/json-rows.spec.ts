import { encodeJson, EncodedJson, jsonRowsOf, withEncodedMember } from './json-rows';

const bytes = (text: string) => Buffer.from(text, 'utf8') as EncodedJson;
const text = (json: EncodedJson) => json.toString('utf8');

describe('withEncodedMember', () => {
  it('adds the key last, its value as it was encoded', () => {
    const json = withEncodedMember(encodeJson({ a: 1, b: { c: [2] } }), 'hours', bytes('[{"x":1.5}]'));

    expect(text(json)).toBe('{"a":1,"b":{"c":[2]},"hours":[{"x":1.5}]}');
    expect(JSON.parse(text(json))).toEqual({ a: 1, b: { c: [2] }, hours: [{ x: 1.5 }] });
  });

  it('adds it to an empty object without a stray comma', () => {
    expect(text(withEncodedMember(encodeJson({}), 'hours', bytes('[]')))).toBe('{"hours":[]}');
  });

  it('quotes the key as JSON does, non-ASCII included', () => {
    const json = withEncodedMember(encodeJson({ name: 'Dach ☀' }), 'a"b é', bytes('null'));

    expect(JSON.parse(text(json))).toEqual({ name: 'Dach ☀', 'a"b é': null });
  });
});

describe('jsonRowsOf', () => {
  it('joins the rows into an array, as JSON.stringify writes it', () => {
    const rows = [{ a: 1 }, { b: 'é ☀ 😀' }, { c: null }];

    expect(text(jsonRowsOf(rows.map((row) => [JSON.stringify(row)] as const)))).toBe(JSON.stringify(rows));
  });

  it('joins members into an object', () => {
    const rows = [['"x":{"a":1}'], ['"ÿ":2']] as const;

    expect(JSON.parse(text(jsonRowsOf(rows, 'object')))).toEqual({ x: { a: 1 }, ÿ: 2 });
  });

  it('is [] or {} without rows, and a single row without a comma', () => {
    expect(text(jsonRowsOf([]))).toBe('[]');
    expect(text(jsonRowsOf([], 'object'))).toBe('{}');
    expect(text(jsonRowsOf([['{"a":1}']]))).toBe('[{"a":1}]');
  });
});
