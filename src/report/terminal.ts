/**
 * The terminal report printed by the CLI: the markdown report's information, compact, as
 * aligned plain text. Pure: colour only when asked (the caller knows whether stdout is a TTY).
 */
import type { Analysis, MetricComparison, Results } from '../results/types.js';
import { formatChange, formatCount, formatInterval, formatMetricName, formatPercent, formatValue, sanitizeText } from './format.js';
import { collectWarnings, describeIncomplete, describeSetup, describeSides } from './run-info.js';
import { tallyFailures } from './samples.js';
import { countVerdicts, describeCounts, describeDecision, orderRows, type ReportRow, type Tone, verdictTone } from './verdicts.js';

export interface TerminalOptions {
  /** ANSI colours; default false. */
  color?: boolean;
  /** Columns available; a table wider than this shortens scenario names. Default 100. */
  width?: number;
}

type Style = 'red' | 'yellow' | 'green' | 'bold';

/** SGR codes to switch a style on and back off (not a full reset, so styles can nest). */
const SGR: Record<Style, [number, number]> = {
  red: [31, 39],
  yellow: [33, 39],
  green: [32, 39],
  bold: [1, 22],
};

const TONE_STYLE: Record<Tone, Style | null> = {
  fail: 'red',
  warn: 'yellow',
  good: 'green',
  neutral: null,
  unknown: 'yellow',
};

const VERDICT_TEXT: Record<Tone, string> = {
  fail: '✗ regression',
  warn: '! regression',
  good: '✓ improvement',
  neutral: 'unchanged',
  unknown: '? inconclusive',
};

const DEFAULT_WIDTH = 100;
const MIN_SCENARIO_WIDTH = 8;
const COLUMN_GAP = '  ';
const GATED_MARK = ' *';

type Paint = (text: string, style: Style | null) => string;

function painter(enabled: boolean): Paint {
  return (text, style) => (enabled && style !== null ? `\x1b[${SGR[style][0]}m${text}\x1b[${SGR[style][1]}m` : text);
}

/** Columns a character takes: 0 for combining marks, 2 for East Asian wide and emoji. */
function charWidth(codePoint: number): number {
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f)) return 0;
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    codePoint >= 0x1f300;
  return wide ? 2 : 1;
}

function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char.codePointAt(0)!);
  return width;
}

/** Cuts text to at most `width` columns, ending in "…" when cut. */
function fitWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  for (const char of text) {
    if (displayWidth(out + char) > width - 1) break;
    out += char;
  }
  return `${out}…`;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'left' ? text + fill : fill + text;
}

interface Column {
  header: string;
  align: 'left' | 'right';
}

const COLUMNS: Column[] = [
  { header: 'scenario', align: 'left' },
  { header: 'metric', align: 'left' },
  { header: 'base', align: 'right' },
  { header: 'head', align: 'right' },
  { header: 'change (95% CI)', align: 'left' },
  { header: 'verdict', align: 'left' },
];

function rowCells(row: ReportRow): string[] {
  const c = row.comparison;
  return [
    row.firstOfScenario ? sanitizeText(c.scenario) : '',
    formatMetricName(c.metric) + (c.gated ? GATED_MARK : ''),
    formatValue(c.metric, c.baseMedian),
    formatValue(c.metric, c.headMedian),
    `${formatChange(c.change)} ${formatInterval(c.ciLow, c.ciHigh)}`,
    VERDICT_TEXT[verdictTone(c)],
  ];
}

/** Widest cell per column; the scenario column gives way when the table is wider than `width`. */
function columnWidths(cells: string[][], width: number): number[] {
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => displayWidth(row[i]!))));
  const total = widths.reduce((a, b) => a + b, 0) + COLUMN_GAP.length * (COLUMNS.length - 1);
  const overflow = total - width;
  if (overflow > 0) widths[0] = Math.max(MIN_SCENARIO_WIDTH, widths[0]! - overflow);
  return widths;
}

/** Pads every cell but the last (the verdict), then colours it: escape codes never shift columns. */
function renderTableLine(cells: string[], widths: number[], style: Style | null, paint: Paint): string {
  const last = cells.length - 1;
  const padded = cells.map((cell, i) => (i === last ? cell : pad(fitWidth(cell, widths[i]!), widths[i]!, COLUMNS[i]!.align)));
  padded[last] = paint(padded[last]!, style);
  return padded.join(COLUMN_GAP);
}

function renderTable(rows: ReportRow[], width: number, paint: Paint): string[] {
  if (rows.length === 0) return ['nothing was compared: no pair was measured'];
  const cells = rows.map(rowCells);
  const widths = columnWidths([COLUMNS.map((c) => c.header), ...cells], width);
  return [
    paint(renderTableLine(COLUMNS.map((c) => c.header), widths, null, paint), 'bold'),
    ...cells.map((row, i) => renderTableLine(row, widths, TONE_STYLE[verdictTone(rows[i]!.comparison)], paint)),
    `${GATED_MARK.trim()} gated: fails the build when it regresses significantly beyond its limit`,
  ];
}

function renderHeadline(results: Results, analysis: Analysis, paint: Paint): string[] {
  const counts = describeCounts(countVerdicts(analysis.comparisons));
  const pass = analysis.decision === 'pass';
  const decision = paint(`${pass ? '✓' : '✗'} ${describeDecision(analysis)}`, pass ? 'green' : 'red');
  const lines = [`${paint('perfgate', 'bold')}: ${counts} — ${decision}`];
  const incomplete = describeIncomplete(results, sanitizeText);
  if (incomplete !== null) lines.push(paint(`! incomplete run: ${incomplete}`, 'yellow'));
  lines.push(`${describeSides(results, sanitizeText)} · ${describeSetup(results, sanitizeText)}`);
  return lines;
}

function renderWarnings(results: Results, analysis: Analysis, paint: Paint): string[] {
  const warnings = collectWarnings(results, analysis);
  if (warnings.length === 0) return [];
  const items = warnings.map((w) => {
    const where = w.scenario === undefined ? '' : `${sanitizeText(w.scenario)}: `;
    return `  ${paint('!', 'yellow')} ${where}${sanitizeText(w.message)} (${sanitizeText(w.code)})`;
  });
  return ['', 'warnings:', ...items];
}

function renderFailures(results: Results): string[] {
  const tallies = tallyFailures(results);
  if (tallies.length === 0) return [];
  const items = tallies.map(
    (t) =>
      `  ${sanitizeText(t.scenario)} ${t.side}: ${formatCount(t.non2xx)} non-2xx, ${formatCount(t.errors)} errors, ${formatCount(t.timeouts)} timeouts of ${formatCount(t.requests)} requests`,
  );
  return ['', 'failed requests:', ...items];
}

function describeDetectable(c: MetricComparison): string {
  const beyond = c.detectable > c.limit ? ', larger than the limit' : '';
  return `smallest detectable change, ${sanitizeText(c.scenario)} ${formatMetricName(c.metric)}: ${formatPercent(c.detectable)} (limit ${formatPercent(c.limit)}${beyond})`;
}

function renderDetectable(rows: ReportRow[]): string[] {
  const throughput = rows.filter((r) => r.comparison.metric === 'throughput');
  return throughput.length === 0 ? [] : ['', ...throughput.map((r) => describeDetectable(r.comparison))];
}

/** The terminal report: headline and decision, method line, table, warnings, power. */
export function renderTerminal(results: Results, analysis: Analysis, options: TerminalOptions = {}): string {
  const paint = painter(options.color ?? false);
  const rows = orderRows(results, analysis);
  const lines = [
    ...renderHeadline(results, analysis, paint),
    '',
    ...renderTable(rows, options.width ?? DEFAULT_WIDTH, paint),
    ...renderWarnings(results, analysis, paint),
    ...renderFailures(results),
    ...renderDetectable(rows),
  ];
  return lines.join('\n') + '\n';
}
