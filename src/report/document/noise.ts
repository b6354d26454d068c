/**
 * The tables of the report's details as document tables: how much the pairs and start pairs
 * moved and what the run could have caught, for the HTTP metrics and the micro-benchmarks, and
 * the requests that failed.
 */
import type { Assessment } from '../../assess/types.js';
import type { MetricComparison } from '../../results/types.js';
import { formatCount, formatInterval, formatPercent } from '../../stats/format.js';
import { formatLimit, formatMetricName } from '../format.js';
import type { ReportRow } from '../verdicts.js';
import type { Cell, Table } from './types.js';

/** The smallest detectable change, marked when beyond the limit: this run could not have seen a change of that size. */
function detectableCell(c: Pick<MetricComparison, 'detectable' | 'limit'> & { metric?: MetricComparison['metric'] }): Cell {
  const text = c.metric ? formatLimit(c.metric, c.detectable) : formatPercent(c.detectable);
  return { kind: 'figure', text, ...(c.detectable > c.limit && { warn: true }) };
}

function band(q: { q1: number; q3: number } | null): Cell {
  return { kind: 'figure', text: q === null ? 'n/a' : formatInterval(q.q1, q.q3) };
}

/** The HTTP noise table: per comparison, the middle half of the per-pair and per-start changes, what was detectable, the limit, the units. */
export function noiseTable(rows: ReportRow[]): Table {
  return {
    group: 'scenario',
    columns: [
      { header: 'metric', align: 'left' },
      { header: 'per-pair change, middle half (%)', align: 'right' },
      { header: 'per-start change, middle half (%)', align: 'right' },
      { header: 'smallest detectable', align: 'right' },
      { header: 'limit', align: 'right' },
      { header: 'start pairs (pairs)', align: 'right' },
    ],
    rows: rows.map((row) => {
      const c = row.comparison;
      return {
        group: { name: c.scenario, ...(row.rate && { note: row.rate }) },
        cells: [
          { kind: 'label', text: formatMetricName(c.metric), gated: c.gated },
          band(c.noise.pairs),
          band(c.noise.starts),
          detectableCell(c),
          { kind: 'figure', text: formatLimit(c.metric, c.limit) },
          { kind: 'figure', text: c.pairs === undefined ? formatCount(c.n) : `${formatCount(c.n)} (${formatCount(c.pairs)})` },
        ],
      };
    }),
  };
}

/** The micro-benchmark noise table: how much one round moved, what was detectable, the limit, the rounds. */
export function benchmarkNoiseTable(analysis: Assessment): Table {
  return {
    columns: [
      { header: 'benchmark', align: 'left' },
      { header: 'per-round change, middle half (%)', align: 'right' },
      { header: 'smallest detectable', align: 'right' },
      { header: 'limit', align: 'right' },
      { header: 'rounds used', align: 'right' },
    ],
    rows: (analysis.benchmarks?.comparisons ?? []).map((c) => ({
      cells: [
        { kind: 'text', text: c.label, gated: c.gated },
        band(c.noise.pairs),
        detectableCell(c),
        { kind: 'figure', text: formatPercent(c.limit) },
        { kind: 'figure', text: formatCount(c.n) },
      ],
    })),
  };
}

/** The failed-request tallies: per scenario and side, the requests and how many failed in which way. */
export function failuresTable(analysis: Assessment): Table {
  return {
    columns: [
      { header: 'scenario', align: 'left' },
      { header: 'side', align: 'left' },
      ...['requests', 'non-2xx', 'errors', 'timeouts'].map((header) => ({ header, align: 'right' as const })),
    ],
    rows: analysis.failedRequests.map((t) => ({
      cells: [
        { kind: 'text', text: t.scenario },
        { kind: 'label', text: t.side },
        ...[t.requests, t.non2xx, t.errors, t.timeouts].map((n): Cell => ({ kind: 'figure', text: formatCount(n) })),
      ],
    })),
  };
}
