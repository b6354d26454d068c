import type { Pair } from '../results/types.js';
import { hodgesLehmann } from '../stats/hodges-lehmann.js';

/**
 * The start pair that served a pair: the unit of replication. Each start of a service carries
 * its own offset (JIT decisions, memory layout, hash seed, CPU placement) that moves every
 * slice it serves, so slices of one start are not independent evidence of base vs head
 * (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013: replicate at the
 * level that carries random effects, and summarise below it).
 */
export function startOf(pair: Pair): number {
  return pair.start;
}

export interface StartSummary {
  start: number;
  /** The Hodges–Lehmann estimate of the start pair's finite values (e.g. per-pair log-ratios). */
  value: number;
  /** Finite values it summarises. */
  n: number;
}

/**
 * One summary per start pair: the Hodges–Lehmann estimate of its finite values (the median of
 * their Walsh averages, as the run's estimate is over the starts), in the order the starts first
 * appear. Not the median: of 3 pairs it keeps one and its spread is 1.16 σ/√3 against the
 * Hodges–Lehmann estimate's 1.01 σ/√3 ((x₍₁₎ + 2x₍₂₎ + x₍₃₎)/4; 3/π efficiency against the mean
 * for large k, Hodges & Lehmann, Ann. Math. Statist. 1963). Re-deciding the recorded runs,
 * it narrowed the equivalence interval in every kind of service and took drawn quiet express
 * A/A runs from 82% to 90% unchanged, with no false fail (docs/calibration-log.md, "A tenth pass").
 * Not the mean: a slice hit by a burst of machine noise moves it by a quarter, not a third.
 */
export function summarizeStarts(values: readonly number[], starts: readonly number[]): StartSummary[] {
  return [...groupByStart(values, starts)].map(([start, group]) => ({ start, value: hodgesLehmann(group), n: group.length }));
}

/**
 * The standard deviation of the finite values around their start's mean, pooled over the starts
 * with 2 or more values (each loses one degree of freedom to its mean): how far a pair's
 * log-ratio moves inside its start pair. Null when no start has 2 values.
 */
export function spreadWithinStarts(values: readonly number[], starts: readonly number[]): number | null {
  let squares = 0;
  let freedom = 0;
  for (const group of groupByStart(values, starts).values()) {
    if (group.length < 2) continue;
    const mean = group.reduce((sum, x) => sum + x, 0) / group.length;
    squares += group.reduce((sum, x) => sum + (x - mean) ** 2, 0);
    freedom += group.length - 1;
  }
  return freedom > 0 ? Math.sqrt(squares / freedom) : null;
}

/** The finite values of each start pair, in the order the starts first appear. */
function groupByStart(values: readonly number[], starts: readonly number[]): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  values.forEach((value, i) => {
    if (!Number.isFinite(value)) return;
    const group = groups.get(starts[i]!);
    if (group) group.push(value);
    else groups.set(starts[i]!, [value]);
  });
  return groups;
}
