import { escapeMarkup, Markup, markup } from './markup';

describe('markup', () => {
  it('escapes every interpolated text, in content and in attributes', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(markup`<h1 title="${name}">${name}</h1>`.text).toBe(
      '<h1 title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</h1>',
    );
  });

  it('keeps markup built by the tag, and joins lists', () => {
    const items = ['a<b', 'c'].map((item) => markup`<li>${item}</li>`);
    expect(markup`<ul>${items}</ul>`.text).toBe('<ul><li>a&lt;b</li><li>c</li></ul>');
  });

  it('writes numbers, and nothing for null, undefined and false', () => {
    expect(markup`${1.5}|${null}|${undefined}|${false}|${0}`.text).toBe('1.5||||0');
  });

  it('is a Markup whose string is its text', () => {
    const bold = markup`<b>${'x'}</b>`;
    expect(bold).toBeInstanceOf(Markup);
    expect(String(bold)).toBe('<b>x</b>');
  });
});

describe('escapeMarkup', () => {
  it.each([
    ['&', '&amp;'],
    ['<', '&lt;'],
    ['>', '&gt;'],
    ['"', '&quot;'],
    ["'", '&#39;'],
    ['plain text', 'plain text'],
    ['&amp;', '&amp;amp;'],
  ])('%s → %s', (text, escaped) => {
    expect(escapeMarkup(text)).toBe(escaped);
  });
});
