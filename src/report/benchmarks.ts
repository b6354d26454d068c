/**
 * What every renderer says about the micro-benchmarks: the rows of their table and how they
 * were measured. Raw text; renderers escape what came from the PR's
 * code (names, messages) and choose how it looks.
 */
import type { Analysis, BenchmarkComparison, Results, UncomparedBenchmark } from '../results/types.js';
import { formatChange, formatInterval, formatOpsPerSec } from '../stats/format.js';
import { type Tone, verdictTone } from './rows.js';
import { orderBenchmarkRows } from './verdicts.js';

/** A compared benchmark's verdict tone, or why a listed one was not compared. */
export type BenchmarkStatus = Tone | UncomparedBenchmark['status'];

export interface BenchmarkRow {
  label: string;
  gated: boolean;
  /** Median ops/s per side, formatted; "—" for a side that does not have the benchmark. */
  base: string;
  head: string;
  /** "+12.0% (+9.8 … +14.1)", or "—" when not compared. */
  change: string;
  status: BenchmarkStatus;
  /** Why a failed benchmark was not compared. */
  reason: string | null;
  /** The comparison behind the row, when there is one. */
  comparison: BenchmarkComparison | null;
}

const ABSENT = '—';

function isComparison(row: BenchmarkComparison | UncomparedBenchmark): row is BenchmarkComparison {
  return 'verdict' in row;
}

/** The table rows, in display order (compared, then added, removed and failed). */
export function benchmarkRows(analysis: Analysis): BenchmarkRow[] {
  return orderBenchmarkRows(analysis).map((row) => {
    if (isComparison(row)) {
      return {
        label: row.label,
        gated: row.gated,
        base: formatOpsPerSec(row.baseMedian),
        head: formatOpsPerSec(row.headMedian),
        change: `${formatChange(row.change)} ${formatInterval(row.ciLow, row.ciHigh)}`,
        status: verdictTone(row),
        reason: null,
        comparison: row,
      };
    }
    const side = (ops: number | null, present: boolean) => (present ? formatOpsPerSec(ops) : ABSENT);
    return {
      label: row.label,
      gated: false,
      base: side(row.baseOpsPerSec, row.status !== 'added'),
      head: side(row.headOpsPerSec, row.status !== 'removed'),
      change: ABSENT,
      status: row.status,
      reason: row.reason,
      comparison: null,
    };
  });
}

/** "each number is one process's mean ops/s; 10 rounds, a fresh process per file and side". */
export function describeBenchmarkMethod(results: Results): string {
  const rounds = results.benchmarks?.rounds ?? 0;
  return `each number is one process's mean ops/s; ${rounds} ${rounds === 1 ? 'round' : 'rounds'}, a fresh process per file and side`;
}
