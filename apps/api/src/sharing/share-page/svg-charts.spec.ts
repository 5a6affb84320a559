import { barChart, CHART, gridSteps, niceCeiling, timeAreaChart, TimePoint } from './svg-charts';

const left = CHART.left;
const right = CHART.width - CHART.right;
const top = CHART.top;
const bottom = CHART.height - CHART.bottom;
const watts = (value: number) => `${value} W`;

const chartOf = (points: TimePoint[]) =>
  timeAreaChart({
    points,
    from: 0,
    to: 1000,
    ticks: [
      { at: 0, label: '00' },
      { at: 500, label: '12' },
    ],
    formatValue: watts,
    title: 'Solar power today',
  }).text;

/** The `d` attribute of every element of class `name`. */
const pathsOf = (svg: string, name: string) =>
  [...svg.matchAll(new RegExp(`<path class="${name}" d="([^"]+)"`, 'g'))].map((match) => match[1]);

describe('niceCeiling', () => {
  it.each([
    [0, 1],
    [-5, 1],
    [Number.NaN, 1],
    [0.3, 0.5],
    [1, 1],
    [1.1, 2],
    [2.2, 2.5],
    [3, 5],
    [7, 10],
    [2000, 2000],
    [2001, 2500],
    [4321, 5000],
    [12.4, 20],
  ])('%d → %d', (value, ceiling) => {
    expect(niceCeiling(value)).toBeCloseTo(ceiling, 10);
  });
});

describe('gridSteps', () => {
  it.each([
    [1, 5],
    [2, 4],
    [2.5, 5],
    [5, 5],
    [20, 4],
    [0.5, 5],
    [5000, 5],
  ])('divides an axis up to %d into %d round steps', (top, steps) => {
    expect(gridSteps(top)).toBe(steps);
  });
});

describe('timeAreaChart', () => {
  it('maps the first instant and zero to the bottom left, the top of the axis to the top right', () => {
    const svg = chartOf([
      { at: 0, value: 0 },
      { at: 1000, value: 2000 },
    ]);
    expect(pathsOf(svg, 'line')).toEqual([`M${left},${bottom} L${right},${top}`]);
    expect(pathsOf(svg, 'area')).toEqual([
      `M${left},${bottom} L${left},${bottom} L${right},${top} L${right},${bottom} Z`,
    ]);
  });

  it('scales values to a round top and labels the value axis with it', () => {
    const svg = chartOf([
      { at: 0, value: 1000 },
      { at: 500, value: 1800 },
    ]);
    for (const label of ['0 W', '500 W', '1000 W', '1500 W', '2000 W'])
      expect(svg).toContain(`>${label}</text>`);
    const middle = bottom - (1000 / 2000) * (bottom - top);
    expect(pathsOf(svg, 'line')[0]).toMatch(new RegExp(`^M${left},${middle} `));
  });

  it('breaks the line where a value is missing, and draws a lone point as a dot', () => {
    const svg = chartOf([
      { at: 0, value: 10 },
      { at: 100, value: 20 },
      { at: 200, value: null },
      { at: 300, value: 30 },
      { at: 400, value: null },
      { at: 500, value: 40 },
      { at: 600, value: 50 },
    ]);
    expect(pathsOf(svg, 'line')).toHaveLength(2);
    expect(pathsOf(svg, 'area')).toHaveLength(2);
    expect(svg.match(/<circle class="dot"/g)).toHaveLength(1);
  });

  it('labels a 5 kW axis in whole kilowatts', () => {
    const svg = chartOf([{ at: 0, value: 4990 }]);
    const labels = [...svg.matchAll(/text-anchor="end">([^<]+)</g)].map((match) => match[1]);
    expect(labels).toEqual(['0 W', '1000 W', '2000 W', '3000 W', '4000 W', '5000 W']);
  });

  it('draws only the axes without data', () => {
    const svg = chartOf([]);
    expect(pathsOf(svg, 'line')).toEqual([]);
    expect(svg).toContain('>0 W</text>');
    expect(svg).toContain('>1 W</text>');
  });

  it('is an accessible SVG image with its title, escaped, and its time ticks', () => {
    const svg = timeAreaChart({
      points: [],
      from: 0,
      to: 10,
      ticks: [{ at: 5, label: '<b>' }],
      formatValue: watts,
      title: 'A & B',
    }).text;
    expect(svg).toMatch(/^<svg class="chart" viewBox="0 0 640 220" role="img" aria-label="A &amp; B"/);
    expect(svg).toContain('<title>A &amp; B</title>');
    expect(svg).toContain('text-anchor="middle">&lt;b&gt;</text>');
    expect(svg).not.toContain('<b>');
  });
});

describe('barChart', () => {
  const bars = (values: number[]) =>
    barChart({
      bars: values.map((value, index) => ({ label: `D${index}`, value, valueLabel: `${value} kWh` })),
      formatValue: (value) => `${value}`,
      title: 'Forecast',
    }).text;
  const heights = (svg: string) =>
    [...svg.matchAll(/<rect class="bar" x="[^"]+" y="[^"]+" width="[^"]+" height="([^"]+)"/g)].map((match) =>
      Number(match[1]),
    );

  it('draws bars in proportion to their values on a round axis', () => {
    const svg = bars([10, 5, 0, 20]);
    const full = bottom - top;
    expect(heights(svg)).toEqual([full / 2, full / 4, 0, full]);
    for (const text of ['>10 kWh<', '>0 kWh<', '>D0<', '>D3<']) expect(svg).toContain(text);
  });

  it('spreads the bars evenly over the plot', () => {
    const svg = bars([1, 1]);
    const centres = [...svg.matchAll(/<text class="value" x="([^"]+)"/g)].map((match) => Number(match[1]));
    const slot = (right - left) / 2;
    expect(centres).toEqual([left + slot / 2, left + slot * 1.5]);
  });

  it('keeps a value axis when every value is zero', () => {
    expect(heights(bars([0, 0]))).toEqual([0, 0]);
  });
});
