/**
 * The report's verdict tables as document tables: the HTTP verdicts, the micro-benchmarks and
 * service health. The words of each cell are decided here, once; the printers lay them out.
 */
import type { Results } from '../../results/types.js';
import { type BenchmarkRow, describeBenchmarkMethod } from '../benchmarks.js';
import { formatMetricChange, formatMetricName, formatValue } from '../format.js';
import { describeHealthMethod } from '../health.js';
import { betterSideOpen, FAILING_IMPROVEMENT, type HealthCell, type HealthRow, verdictTone } from '../rows.js';
import type { ReportRow } from '../verdicts.js';
import type { Cell, Column, Intro, Line, List, Table, Tone } from './types.js';

/** The micro-benchmark section's opening: what each number is, and how many rounds ran. */
export function benchmarkIntro(results: Results): Intro {
  return { title: 'Micro-benchmarks', about: describeBenchmarkMethod(results) };
}

/** The service-health section's opening: where it was measured. */
export function healthIntro(results: Results): Intro {
  return { title: 'Service health', about: describeHealthMethod(results) };
}

const VERDICT_WORDS: Record<Tone, string> = {
  fail: 'regression',
  warn: 'regression',
  good: 'improvement',
  neutral: 'unchanged',
  unknown: 'inconclusive',
};

/** A verdict in the usual words; with `open` (betterSideOpen), "no regression" and what it leaves open. */
export function verdictCell(tone: Tone, open?: string): Cell {
  if (open !== undefined) return { kind: 'verdict', mark: 'neutral', words: 'no regression', detail: open };
  return { kind: 'verdict', mark: tone, words: VERDICT_WORDS[tone] };
}

const VERDICT_COLUMNS: Column[] = [
  { header: 'metric', align: 'left' },
  { header: 'base', long: 'base (median)', align: 'right' },
  { header: 'head', long: 'head (median)', align: 'right' },
  { header: 'change (95% CI)', long: 'paired change (95% CI)', align: 'left' },
  { header: 'verdict', align: 'left' },
];

/** The HTTP verdict table: one row per comparison, grouped by scenario, a fixed rate noted on its group. */
export function verdictTable(rows: ReportRow[]): Table {
  return {
    group: 'scenario',
    columns: VERDICT_COLUMNS,
    rows: rows.map((row) => {
      const c = row.comparison;
      const tone = verdictTone(c);
      return {
        group: { name: c.scenario, ...(row.rate && { note: row.rate }) },
        cells: [
          { kind: 'label', text: formatMetricName(c.metric), gated: c.gated },
          { kind: 'figure', text: formatValue(c.metric, c.baseMedian) },
          { kind: 'figure', text: formatValue(c.metric, c.headMedian) },
          { kind: 'figure', text: formatMetricChange(c) },
          c.headFails ? { kind: 'verdict', mark: 'unknown', words: FAILING_IMPROVEMENT } : verdictCell(tone, betterSideOpen(c)),
        ],
      };
    }),
  };
}

/** More unchanged scenarios than this are named on one line: a line each would push the story off the screen. */
const UNCHANGED_LINES = 5;
/** Unchanged scenarios named on that line; the others are counted. */
const UNCHANGED_NAMES = 12;

/**
 * Each scenario whose every metric is unchanged (or, gated, no regression), on one line with its gated changes:
 * "GET /hello: throughput +1.4% (−1.7 … +5.4) · latency p99 −4.4% (−12.0 … +6.8)"; beyond
 * UNCHANGED_LINES, their names on one line, the first UNCHANGED_NAMES (the full table has them
 * all, with their numbers). Null for none.
 */
export function unchangedList(scenarios: readonly ReportRow[][]): List | null {
  if (scenarios.length === 0) return null;
  // A metric open only on its better side is not unchanged: the heading and its line say so.
  const open = scenarios.some((rows) => rows.some((row) => row.comparison.verdict === 'no-regression'));
  const title = open ? 'Unchanged or no regression' : 'Unchanged';
  const within = open ? 'no metric worse beyond its limit' : 'every metric within its limit';
  if (scenarios.length > UNCHANGED_LINES) {
    const named = scenarios.slice(0, UNCHANGED_NAMES);
    const names = named.flatMap((rows, i): Line => [...(i === 0 ? [] : [{ kind: 'label' as const, text: ' · ' }]), { kind: 'text', text: rows[0]!.comparison.scenario }]);
    const more: Line = scenarios.length > named.length ? [{ kind: 'label', text: ` and ${scenarios.length - named.length} more (in the full table)` }] : [];
    return { title, lead: `, ${within.replace('metric', `metric of these ${scenarios.length} scenarios`)}:`, items: [[...names, ...more]] };
  }
  const items = scenarios.map((rows): Line => {
    const shown = rows.some((row) => row.comparison.gated) ? rows.filter((row) => row.comparison.gated) : rows;
    const first = rows[0]!;
    const changes = shown.flatMap((row, i): Line => [
      { kind: 'label', text: `${i === 0 ? '' : ' · '}${formatMetricName(row.comparison.metric)} ` },
      { kind: 'figure', text: formatMetricChange(row.comparison) },
      ...(row.comparison.verdict === 'no-regression' ? [{ kind: 'label' as const, text: ' no regression' }] : []),
    ]);
    return [{ kind: 'text', text: first.comparison.scenario }, { kind: 'label', text: `${first.rate ? ` (${first.rate})` : ''}: ` }, ...changes];
  });
  return { title, lead: `, ${within}:`, items };
}

const BENCHMARK_COLUMNS: Column[] = [
  { header: 'benchmark', align: 'left' },
  { header: 'base ops/s', align: 'right' },
  { header: 'head ops/s', align: 'right' },
  { header: 'change (95% CI)', align: 'left' },
  { header: 'verdict', align: 'left' },
];

function benchmarkVerdict(row: BenchmarkRow): Cell {
  if (row.status === 'added' || row.status === 'removed') return { kind: 'verdict', mark: row.status, words: row.status };
  if (row.status === 'failed') return { kind: 'verdict', mark: 'warn', words: 'not compared', ...(row.reason && { detail: row.reason }) };
  return verdictCell(row.status, row.comparison ? betterSideOpen(row.comparison) : undefined);
}

/** The micro-benchmark table: one row per benchmark, compared or listed. */
export function benchmarkTable(rows: BenchmarkRow[]): Table {
  return {
    columns: BENCHMARK_COLUMNS,
    rows: rows.map((row) => ({
      cells: [
        { kind: 'text', text: row.label, gated: row.gated },
        { kind: 'figure', text: row.base },
        { kind: 'figure', text: row.head },
        { kind: 'figure', text: row.change },
        benchmarkVerdict(row),
      ],
    })),
  };
}

/** A health row's verdict: the usual words, a memory-growth verdict in its own, a load generator at its limit, or nothing. */
function healthVerdict(cell: HealthCell): Cell {
  switch (cell.kind) {
    case 'verdict':
      return cell.words ? { kind: 'verdict', mark: cell.tone, words: cell.words } : verdictCell(cell.tone, cell.open);
    case 'leak':
      if (cell.tone === 'fail' || cell.tone === 'warn') return { kind: 'verdict', mark: cell.tone, words: 'possible leak' };
      return cell.tone === 'good' ? { kind: 'verdict', mark: 'good', words: 'growth gone' } : verdictCell(cell.tone, cell.open);
    case 'generator':
      return cell.bound ? { kind: 'verdict', mark: 'warn', words: 'at its limit' } : { kind: 'label', text: '' };
    default:
      return { kind: 'label', text: '' };
  }
}

const HEALTH_COLUMNS: Column[] = [
  { header: 'metric', align: 'left' },
  { header: 'base', align: 'right' },
  { header: 'head', align: 'right' },
  { header: 'change (95% CI)', align: 'left' },
  { header: 'verdict', align: 'left' },
];

/** The service-health table: the start-up rows, then each scenario's health rows. */
export function healthTable(rows: HealthRow[]): Table {
  return {
    group: 'scenario',
    columns: HEALTH_COLUMNS,
    rows: rows.map((row) => ({
      group: { name: row.scenario },
      cells: [
        { kind: 'label', text: row.metric, gated: row.gated },
        { kind: 'figure', text: row.base },
        { kind: 'figure', text: row.head },
        row.culprit === undefined ? { kind: 'figure', text: row.change } : { kind: 'text', text: `${row.change}: ${row.culprit}` },
        healthVerdict(row.cell),
      ],
    })),
  };
}
