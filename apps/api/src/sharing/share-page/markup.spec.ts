import { escapeMarkup, html, Markup } from './markup';

describe('html', () => {
  it('escapes every interpolated text, in content and in attributes', () => {
    const name = `<script>alert("x")</script>&'`;
    expect(html`<h1 title="${name}">${name}</h1>`.text).toBe(
      '<h1 title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</h1>',
    );
  });

  it('keeps markup built by the tag, and joins lists', () => {
    const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(
      html`<ul>
        ${items}
      </ul>`.text,
    ).toBe('<ul><li>a&lt;b</li><li>c</li></ul>');
  });

  it('writes numbers, and nothing for null, undefined and false', () => {
    expect(html`${1.5}|${null}|${undefined}|${false}|${0}`.text).toBe('1.5||||0');
  });

  it('is a Markup whose string is its text', () => {
    const markup = html`<b>${'x'}</b>`;
    expect(markup).toBeInstanceOf(Markup);
    expect(String(markup)).toBe('<b>x</b>');
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
