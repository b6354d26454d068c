import type { Pair } from '../results/types.js';
import { median } from '../stats/descriptive.js';

/**
 * The start pair that served a pair: the unit of replication. Each start of a service carries
 * its own offset (JIT decisions, memory layout, hash seed, CPU placement) that moves every
 * slice it serves, so slices of one start are not independent evidence of base vs head
 * (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013: replicate at the
 * level that carries random effects, and summarise below it). Results written before several
 * starts per block had one start pair per block.
 */
export function startOf(pair: Pair): number {
  return pair.start ?? pair.block;
}

export interface StartSummary {
  start: number;
  /** The median of the start pair's finite values (e.g. per-pair log-ratios). */
  value: number;
  /** Finite values it summarises. */
  n: number;
}

/**
 * One summary per start pair: the median of its finite values, in the order the starts first
 * appear. The median, not the mean, because a slice can be hit by a burst of machine noise
 * (docs/method.md, "Noise"): one bad slice should not move its start's summary.
 */
export function summarizeStarts(values: readonly number[], starts: readonly number[]): StartSummary[] {
  const groups = new Map<number, number[]>();
  values.forEach((value, i) => {
    if (!Number.isFinite(value)) return;
    const start = starts[i]!;
    const group = groups.get(start) ?? [];
    group.push(value);
    groups.set(start, group);
  });
  return [...groups].map(([start, group]) => ({ start, value: median(group), n: group.length }));
}
