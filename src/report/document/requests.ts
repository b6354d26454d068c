/**
 * The per-request breakdown of scenarios that send several requests (a mix or a sequence), as a
 * document table: each request's share of the responses and its latency, base against head.
 * Verdicts stay per scenario (the paired tests run on the scenario's slices); this says which
 * request of the mix moved. Values are medians over the slices of each side. Pure.
 */
import type { Pair, Results, Side } from '../../results/types.js';
import { median } from '../../stats/descriptive.js';
import { formatChange, formatCount, formatDurationUs } from '../../stats/format.js';
import type { Cell, TableSection } from './types.js';

export interface RequestRow {
  scenario: string;
  request: string;
  /** Its share of the scenario's responses on head (base when head has none), 0–1. */
  share: number;
  p50Us: Record<Side, number>;
  p99Us: Record<Side, number>;
  responses: Record<Side, number>;
  failed: Record<Side, number>;
}

/** One row per request of every scenario whose slices were measured per request. */
export function requestRows(results: Results): RequestRow[] {
  const rows: RequestRow[] = [];
  for (const scenario of results.scenarios) {
    const names = scenario.pairs.find((p) => p.head.byRequest)?.head.byRequest?.map((r) => r.name);
    if (!names) continue;
    const totals = (side: Side) => scenario.pairs.reduce((n, p) => n + (p[side].byRequest ?? []).reduce((m, r) => m + r.responses, 0), 0);
    const all = { base: totals('base'), head: totals('head') };
    names.forEach((name, i) => {
      const of = (side: Side) => scenario.pairs.map((p: Pair) => p[side].byRequest?.[i]).filter((r) => r !== undefined && r.name === name);
      const stat = (side: Side, key: 'p50Us' | 'p99Us') => {
        const values = of(side)
          .filter((r) => r!.responses > 0)
          .map((r) => r![key]);
        return values.length > 0 ? median(values) : Number.NaN;
      };
      const sum = (side: Side, key: 'responses' | 'failed') => of(side).reduce((n, r) => n + r![key], 0);
      const responses = { base: sum('base', 'responses'), head: sum('head', 'responses') };
      const shareSide: Side = all.head > 0 ? 'head' : 'base';
      rows.push({
        scenario: scenario.name,
        request: name,
        share: all[shareSide] > 0 ? responses[shareSide] / all[shareSide] : 0,
        p50Us: { base: stat('base', 'p50Us'), head: stat('head', 'p50Us') },
        p99Us: { base: stat('base', 'p99Us'), head: stat('head', 'p99Us') },
        responses,
        failed: { base: sum('base', 'failed'), head: sum('head', 'failed') },
      });
    });
  }
  return rows;
}

function latency(us: number): string {
  return Number.isFinite(us) ? formatDurationUs(us) : '–';
}

/** "1.2 ms → 1.5 ms (+25.0%)". */
function latencyChange(values: Record<Side, number>): Cell {
  const { base, head } = values;
  const change = Number.isFinite(base) && Number.isFinite(head) && base > 0 ? ` (${formatChange(head / base - 1)})` : '';
  return { kind: 'figure', text: `${latency(base)} → ${latency(head)}${change}` };
}

function failedCell(row: RequestRow): Cell {
  return { kind: 'figure', text: row.failed.base === 0 && row.failed.head === 0 ? '0' : `${formatCount(row.failed.base)} → ${formatCount(row.failed.head)}` };
}

/** Why a request's responses failed: said once under the breakdown, when any did. */
const FAILED_NOTE =
  'Failed: an unexpected status, an error, or a response without the value a sequence captures from it (then the sequence starts over). Check the request in perfgate.yml and what the service answers.';

/** The breakdown; null when no scenario sends several requests. */
export function requestSection(results: Results): TableSection | null {
  const rows = requestRows(results);
  if (rows.length === 0) return null;
  return {
    title: 'Per request',
    lead: ' (medians over the slices; the verdicts above are per scenario)',
    table: {
      group: 'scenario',
      columns: [
        { header: 'request', align: 'left' },
        { header: 'share', align: 'right' },
        { header: 'p50', long: 'p50 base → head', align: 'right', named: true },
        { header: 'p99', long: 'p99 base → head', align: 'right', named: true },
        { header: 'failed', long: 'failed base → head', align: 'right', named: true },
      ],
      rows: rows.map((row) => ({
        group: { name: row.scenario },
        cells: [
          { kind: 'text', text: row.request },
          { kind: 'figure', text: `${(row.share * 100).toFixed(1)}%` },
          latencyChange(row.p50Us),
          latencyChange(row.p99Us),
          failedCell(row),
        ],
      })),
    },
    notes: rows.some((r) => r.failed.base + r.failed.head > 0) ? [{ mark: 'warn', line: [{ kind: 'label', text: FAILED_NOTE }] }] : [],
  };
}
