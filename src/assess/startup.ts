/**
 * What every start of the service tells before any load (results.starts): the time it took to
 * listen and its memory then. Base start n and head start n were spawned back to back in the
 * same block (engine/run.ts), so they form a pair; each start pair is one unit. Pure.
 */
import type { StartupMetricId } from '../config/types.js';
import type { Results, StartRecord } from '../results/types.js';

export interface StartupSeries {
  metric: StartupMetricId;
  /** Same index = same start pair; ms for startup_time, bytes for startup_memory. */
  base: number[];
  head: number[];
}

const VALUE: Record<StartupMetricId, (record: StartRecord) => number> = {
  startup_time: (r) => r.readyMs,
  startup_memory: (r) => r.rssBytes ?? Number.NaN,
};

/** One series per start-up metric over the start pairs that both sides completed; none for results without start records. */
export function startupSeries(results: Results): StartupSeries[] {
  const records = results.starts ?? [];
  const head = new Map(records.filter((r) => r.side === 'head').map((r) => [r.start, r]));
  const pairs = records.filter((r) => r.side === 'base' && head.has(r.start)).map((r) => [r, head.get(r.start)!] as const);
  if (pairs.length === 0) return [];
  return (Object.keys(VALUE) as StartupMetricId[]).map((metric) => ({
    metric,
    base: pairs.map(([b]) => VALUE[metric](b)),
    head: pairs.map(([, h]) => VALUE[metric](h)),
  }));
}
