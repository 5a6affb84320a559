import { BADGE_COLOURS, renderBadge, textWidth } from './badge';

describe('textWidth', () => {
  it.each([
    ['', 0],
    ['0123456789', 70],
    ['solar', 26.7],
    ['12.4 kWh today', 88],
    ['é', 8],
    ['太陽', 22],
  ])('%j is about %d px', (text, width) => {
    expect(textWidth(text)).toBeCloseTo(width, 5);
  });

  it('grows with wider letters', () => {
    expect(textWidth('WWW')).toBeGreaterThan(textWidth('iii'));
  });
});

describe('renderBadge', () => {
  const widths = (svg: string) =>
    [...svg.matchAll(/<rect (?:x="\d+" )?width="(\d+)" height="20" fill="#/g)].map((m) => Number(m[1]));

  it('sizes each half to its text and the whole to both', () => {
    const svg = renderBadge('solar', '12.4 kWh today', BADGE_COLOURS.producing);
    const label = Math.ceil(textWidth('solar') + 12);
    const value = Math.ceil(textWidth('12.4 kWh today') + 12);
    expect(svg).toMatch(
      new RegExp(`^<svg xmlns="http://www.w3.org/2000/svg" width="${label + value}" height="20"`),
    );
    expect(widths(svg)).toEqual([label, value]);
    expect(svg).toContain(`<rect x="${label}" width="${value}" height="20" fill="#4c1"/>`);
    expect(svg).toContain('aria-label="solar: 12.4 kWh today"');
    expect(svg.match(/>12\.4 kWh today<\/text>/g)).toHaveLength(2);
  });

  it('escapes its texts', () => {
    const svg = renderBadge('<script>', 'a&b', BADGE_COLOURS.offline);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('>&lt;script&gt;</text>');
    expect(svg).toContain('>a&amp;b</text>');
  });
});
