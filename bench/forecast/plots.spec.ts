import { barChartSvg, escapeXml, niceTicks, weekChartSvg } from './plots';

/**
 * Well-formed enough for any SVG viewer: one root `svg` in the SVG namespace, every tag closed in
 * order, no stray `<` or `&` in text, and no number that failed to compute.
 */
function expectWellFormedSvg(svg: string): void {
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  expect(svg).toMatch(/^<svg [^>]*width="\d+" height="\d+" viewBox="0 0 \d+ \d+"/);
  const stack: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let end = 0;
  for (let match = tag.exec(svg); match; match = tag.exec(svg)) {
    const between = svg.slice(end, match.index);
    expect(between).not.toMatch(/[<>]|&(?!(amp|lt|gt|quot|apos);)/);
    end = match.index + match[0].length;
    const [, closing, name, , selfClosing] = match;
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(stack).toEqual([]);
  expect(svg.slice(end).trim()).toBe('');
  expect(svg).not.toMatch(/NaN|Infinity|undefined|null/);
}

describe('weekChartSvg', () => {
  const start = Date.parse('2025-06-01T22:00:00Z'); // local midnight in Berlin (UTC+2)
  const sun = Array.from({ length: 168 }, (_, hour) =>
    Math.max(0, 4000 * Math.sin(((hour % 24) - 5) * (Math.PI / 16))),
  );

  it('draws every series as a path, with a date at each local midnight', () => {
    const svg = weekChartSvg({
      title: 'Solar <week> & more',
      subtitle: 'forecast against measured',
      start,
      timeZone: 'Europe/Berlin',
      yLabel: 'W',
      series: [
        { name: 'measured', values: sun, color: '#111' },
        { name: 'forecast', values: sun.map((value) => value * 0.9), color: '#1f77b4' },
        { name: 'smart persistence', values: sun.map((value) => value * 0.7), color: '#999', dashed: true },
      ],
    });
    expectWellFormedSvg(svg);
    expect(svg.match(/<path /g)).toHaveLength(3);
    expect(svg).toContain('Solar &lt;week&gt; &amp; more');
    expect(svg).toContain('Mon 2025-06-02');
    expect(svg).toContain('Sun 2025-06-08');
    expect(svg.match(/>(Mon|Tue|Wed|Thu|Fri|Sat|Sun) 2025-06-\d\d</g)).toHaveLength(7);
  });

  it('breaks a line at missing hours instead of drawing them as 0', () => {
    const values = sun.map((value, hour) => (hour >= 30 && hour < 40 ? NaN : value));
    const svg = weekChartSvg({
      title: 't',
      subtitle: 's',
      start,
      timeZone: 'UTC+02:00',
      yLabel: 'W',
      series: [{ name: 'measured', values, color: '#111' }],
    });
    expectWellFormedSvg(svg);
    const path = /<path d="([^"]+)"/.exec(svg)![1];
    expect(path.match(/M/g)).toHaveLength(2);
    expect(path.match(/[ML]/g)).toHaveLength(158);
  });

  it('stays well formed with nothing to draw', () => {
    const svg = weekChartSvg({
      title: 't',
      subtitle: 's',
      start,
      timeZone: 'UTC',
      yLabel: 'W',
      series: [{ name: 'measured', values: [NaN, NaN], color: '#111' }],
    });
    expectWellFormedSvg(svg);
    expect(svg).not.toContain('<path');
  });
});

describe('barChartSvg', () => {
  it('draws one bar per value and leaves missing ones out', () => {
    const svg = barChartSvg({
      title: 'nRMSE by month',
      subtitle: 'daytime hours',
      yLabel: 'nRMSE',
      format: (value) => `${(100 * value).toFixed(1)} %`,
      series: [
        { name: 'model', color: '#1f77b4' },
        { name: 'smart persistence', color: '#999' },
      ],
      groups: [
        { label: '2025-06', values: [0.08, 0.15] },
        { label: '2025-07', values: [0.07, null] },
      ],
    });
    expectWellFormedSvg(svg);
    expect(svg.match(/<rect x/g)).toHaveLength(3 + 2); // bars and legend swatches
    expect(svg).toContain('>8.0 %<');
    expect(svg).toContain('2025-07 model: 7.0 %');
  });
});

describe('niceTicks and escapeXml', () => {
  it('gives round ticks from 0 past the maximum', () => {
    expect(niceTicks(3400)).toEqual([0, 1000, 2000, 3000, 4000]);
    expect(niceTicks(0.23)).toEqual([0, 0.05, 0.1, 0.15, 0.2, 0.25]);
    expect(niceTicks(0)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('escapes the five XML specials', () => {
    expect(escapeXml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });
});
