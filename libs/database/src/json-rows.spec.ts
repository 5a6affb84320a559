import { encodeJson, JsonText, withEncodedMember } from './json-rows';

describe('withEncodedMember', () => {
  it('adds the key last, its value as it was encoded', () => {
    const json = withEncodedMember(encodeJson({ a: 1, b: { c: [2] } }), 'hours', '[{"x":1.5}]' as JsonText);

    expect(json).toBe('{"a":1,"b":{"c":[2]},"hours":[{"x":1.5}]}');
    expect(JSON.parse(json)).toEqual({ a: 1, b: { c: [2] }, hours: [{ x: 1.5 }] });
  });

  it('adds it to an empty object without a stray comma', () => {
    expect(withEncodedMember(encodeJson({}), 'hours', '[]' as JsonText)).toBe('{"hours":[]}');
  });

  it('quotes the key as JSON does', () => {
    expect(JSON.parse(withEncodedMember(encodeJson({}), 'a"b', 'null' as JsonText))).toEqual({ 'a"b': null });
  });
});
