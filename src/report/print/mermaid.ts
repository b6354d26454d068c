/**
 * Draws the document's charts of the gated changes (document/chart.ts) as Mermaid
 * `xychart-beta` blocks in markdown. GitHub renders a ```mermaid block in comments and job
 * summaries, so the same text serves the PR comment, the job summary and the CLI's markdown
 * report. It makes the scenario names safe inside the chart's grammar, colours and sizes the
 * chart; it decides no words.
 *
 * Why an xychart, and drawn this way: it is Mermaid's chart of numbers on an axis, and GitHub
 * renders it under the name `xychart-beta` (Mermaid 10.6 and later; the plain `xychart` keyword
 * and plot legends are newer, so they are not used). It knows bars and lines only. Its bars all
 * start at the axis's low end, and several bar series of one category are drawn on top of each
 * other, so an interval is drawn as layers: a bar to the interval's worse end, then the
 * estimate's tick, then a bar in the background colour up to the better end that hides the rest.
 * The limit is a line across the rows; a line needs two rows to be seen, so the last row is the
 * ±limit zone itself.
 */
import { CHART_TONES, type ChartRow, type ChartSection, type MetricChart } from '../document/types.js';
import { sanitizeText } from '../escape.js';
import { MARKS } from './markdown.js';

/**
 * How wide a scenario name may be on the chart's axis, in pixels at Mermaid's 14 px: the names
 * get half the chart's width (Mermaid's plotReservedSpacePercent), less the ticks, padding and
 * the verdict's mark, and Mermaid leaves every name out when one does not fit.
 */
const LABEL_WIDTH = 390;
const WIDTH = 900;
/** Chart height: title, axis and padding, plus each row. */
const HEIGHT_BASE = 150;
const HEIGHT_PER_ROW = 42;

/** GitHub Primer colours; the chart brings its own background so it reads the same in light and dark mode. */
const COLOURS = {
  background: '#ffffff',
  fail: '#ff8182',
  unknown: '#eac54f',
  good: '#6fdd8b',
  neutral: '#afb8c1',
  zone: '#eaeef2',
  estimate: '#1f2328',
  limit: '#cf222e',
  zero: '#6e7781',
} as const;

/**
 * What would end a quoted label, reach Mermaid's preprocessing or be read as HTML: `"` ends the
 * string (the grammar has no escape), a backtick after the opening quote starts a markdown
 * string, `%%` starts a comment or an `%%{init}%%` directive wherever it stands (so the second
 * `%` of a pair goes), `#word;` is Mermaid's own entity syntax and `&word;` an HTML one, and
 * Mermaid passes a label through its HTML sanitiser, which drops `<tag>`s and `<!-- -->` and
 * shows a lone `<` as "&lt;". Each is written as a Mermaid entity (`#34;`), which Mermaid draws
 * as the character, and so is a `]` before a `(`: no reader of the text (a markdown renderer that
 * does not know Mermaid shows the fence's text) then finds a link in it. `>` stays: without a `<` no tag starts, the label is inside a fenced code
 * block, which no markdown renderer reads as HTML, and Mermaid draws an axis label as a text node
 * (test/integration/report-chart.test.ts shows all of it). An `@` gets a zero-width joiner after
 * it, as everywhere in the report (escapeMarkdown): GitHub links no mention inside a code block,
 * but the text then holds no mention for whatever else reads it.
 */
const UNSAFE = /["`<]|#(?=\w+;)|&(?=#?\w+;)|(?<=%)%|\](?=\()/g;

/**
 * Roughly how wide a character is drawn, in pixels at 14 px. Mermaid measures a label before it
 * turns entities back into characters, so an entity counts as its placeholder ("ﬂ°°34¶ß").
 */
function drawnWidth(char: string, unsafe: boolean): number {
  if (unsafe) return 52;
  if (/[ijlft.,:;'|!/\\()[\]{} ]/.test(char)) return 4;
  if (/[A-Zmw@%&]/.test(char) || char.codePointAt(0)! > 0x7f) return 13;
  return 8;
}

/** The "…" that marks a cut, and its width. */
const ELLIPSIS = '…';
const ELLIPSIS_WIDTH = 13;

/**
 * A scenario name made safe inside a quoted Mermaid label: one line without invisible characters
 * (sanitizeText), cut in the middle with "…" to fit the axis (routes that share a long prefix
 * differ at the end: GET /api/v2/orgs/…/builds, …/deploys), and what could break the chart as
 * entities.
 */
export function mermaidLabel(text: string): string {
  const name = sanitizeText(text).trim() || '(unnamed)';
  const unsafe = new Set([...name.matchAll(UNSAFE)].map((m) => m.index));
  const chars: { text: string; width: number }[] = [];
  for (let at = 0; at < name.length; ) {
    const char = String.fromCodePoint(name.codePointAt(at)!);
    const safe = unsafe.has(at) ? `#${char.codePointAt(0)};` : char === '@' ? '@\u200D' : char;
    chars.push({ text: safe, width: drawnWidth(char, unsafe.has(at)) });
    at += char.length;
  }
  const total = chars.reduce((sum, c) => sum + c.width, 0);
  if (total <= LABEL_WIDTH) return chars.map((c) => c.text).join('');
  // Two thirds of the room for the start, the rest for the end.
  const room = LABEL_WIDTH - ELLIPSIS_WIDTH;
  let head = 0;
  for (let width = 0; head < chars.length && width + chars[head]!.width <= (room * 2) / 3; head++) width += chars[head]!.width;
  const headWidth = chars.slice(0, head).reduce((sum, c) => sum + c.width, 0);
  let tail = chars.length;
  for (let width = 0; tail > head && width + chars[tail - 1]!.width <= room - headWidth; tail--) width += chars[tail - 1]!.width;
  return [...chars.slice(0, head), { text: ELLIPSIS }, ...chars.slice(tail)].map((c) => c.text).join('');
}

/**
 * Row labels Mermaid can tell apart: it draws rows with the same label in one place, and two
 * names can be the same once cut (or a scenario can be called "limit ±2%"), so a repeated label
 * gets its ordinal.
 */
function distinct(labels: string[]): string[] {
  const seen = new Map<string, number>();
  return labels.map((label) => {
    const count = (seen.get(label) ?? 0) + 1;
    seen.set(label, count);
    return count === 1 ? label : `${label} (${count})`;
  });
}

/** A number as Mermaid's grammar reads it: plain decimal, no exponent, at most three decimals. */
function num(value: number): string {
  const text = value.toFixed(3).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

/** The step between the numbers Mermaid puts on an axis spanning `span`: d3's ticks(10), 1, 2 or 5 × 10^k. */
function tickStep(span: number): number {
  const raw = span / 10;
  const power = 10 ** Math.floor(Math.log10(raw));
  const error = raw / power;
  return power * (error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.sqrt(2) ? 2 : 1);
}

/**
 * The value axis: every end, estimate, zero and ±limit inside it, and its ends half a tick step
 * past the outermost numbers. Mermaid centres each number on its tick, and a number at the very
 * end of the axis is cut in half by the chart's edge.
 */
function axisRange(chart: MetricChart): [number, number] {
  const limit = chart.limit * 100;
  const values = [0, limit, -limit, ...chart.rows.flatMap((r) => [r.worse, ...(r.interval ?? [])])];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  let range: [number, number] = [lo, hi];
  // Widening the range can change the step: two rounds settle it.
  for (let round = 0; round < 2; round++) {
    const step = tickStep(Math.max(range[1] - range[0], 1e-6));
    range = [(Math.floor(lo / step) - 0.5) * step, (Math.ceil(hi / step) + 0.5) * step];
  }
  return [Number(range[0].toFixed(3)), Number(range[1].toFixed(3))];
}

interface Series {
  kind: 'bar' | 'line';
  /** Names the series in the text (a reader of the source sees what each is); masking layers have none. */
  title?: string;
  colour: string;
  values: number[];
}

interface Series {
  kind: 'bar' | 'line';
  /** Names the series in the text (a reader of the source sees what each is); masking layers have none. */
  title?: string;
  colour: string;
  values: number[];
}

/** The row label: the scenario, and the verdict table's mark unless unchanged (colour alone does not say it). */
function rowLabel(row: ChartRow): string {
  const label = mermaidLabel(row.scenario);
  return row.tone === 'neutral' ? label : `${label} ${MARKS[row.tone]}`;
}

/** The Mermaid text of one metric's chart (without the markdown fence). */
export function renderMermaidChart(chart: MetricChart): string {
  const [min, max] = axisRange(chart);
  const limit = chart.limit * 100;
  // Half the estimate's tick: thin, yet a few pixels wide at the chart's width.
  const tick = (max - min) * 0.004;
  const rows = chart.rows;
  const clamp = (v: number) => Math.min(max, Math.max(min, v));
  // Each series has a value per row and one for the last row, the ±limit zone; `min` draws nothing.
  const perRow = (value: (row: ChartRow) => number | null, zone: number = min) => [...rows.map((r) => clamp(value(r) ?? min)), zone];
  const words = chart.words.series;
  const tones = CHART_TONES.filter((tone) => rows.some((r) => r.tone === tone));
  const series: Series[] = [
    // The bands up to the worse end, one series per verdict so each gets its colour.
    ...tones.map((tone): Series => ({ kind: 'bar', title: words[tone], colour: COLOURS[tone], values: perRow((r) => (r.tone === tone && r.interval ? r.interval[1] : null)) })),
    { kind: 'bar', title: words.within, colour: COLOURS.zone, values: perRow(() => null, limit) },
    { kind: 'bar', title: words.estimate, colour: COLOURS.estimate, values: perRow((r) => r.worse + tick) },
    // The band again below the tick, then the background up to the better end.
    ...tones.map((tone): Series => ({ kind: 'bar', colour: COLOURS[tone], values: perRow((r) => (r.tone === tone && r.interval ? r.worse - tick : null)) })),
    { kind: 'bar', colour: COLOURS.background, values: perRow((r) => (r.interval ? r.interval[0] : r.worse - tick), -limit) },
    { kind: 'line', title: words.limit, colour: COLOURS.limit, values: perRow(() => limit, limit) },
    { kind: 'line', title: words.zero, colour: COLOURS.zero, values: perRow(() => 0, 0) },
  ];
  const config = {
    theme: 'base',
    themeVariables: { xyChart: { backgroundColor: COLOURS.background, plotColorPalette: series.map((s) => s.colour).join(', ') } },
    // Mermaid 12 draws a legend only when it fits beside the plot and versions before it never
    // do: the markdown's line under the charts says how to read them instead, the same everywhere.
    xyChart: { width: WIDTH, height: HEIGHT_BASE + HEIGHT_PER_ROW * (rows.length + 1), showLegend: false },
  };
  const labels = distinct([...rows.map(rowLabel), chart.words.zone]);
  return [
    `%%{init: ${JSON.stringify(config)}}%%`,
    'xychart-beta horizontal',
    `  title "${chart.words.title}"`,
    `  accTitle: ${chart.words.accessibleTitle}`,
    `  accDescr: ${chart.words.description}`,
    `  x-axis [${labels.map((l) => `"${l}"`).join(', ')}]`,
    `  y-axis "${chart.words.axis}" ${num(min)} --> ${num(max)}`,
    ...series.map((s) => `  ${s.kind}${s.title ? ` "${s.title}"` : ''} [${s.values.map(num).join(', ')}]`),
  ].join('\n');
}

/** The charts as markdown: a ```mermaid block per chart, and under them how to read them; null for no charts. */
export function markdownCharts(section: ChartSection | null): string | null {
  if (section === null) return null;
  const blocks = section.charts.map((chart) => ['```mermaid', renderMermaidChart(chart), '```'].join('\n'));
  return [...blocks, `<sub>${section.legend}</sub>`].join('\n\n');
}
