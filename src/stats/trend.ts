// A monotone trend of y against x, within blocks that share a slope but not an intercept (each
// start of a service begins with its own heap): the pooled Theil–Sen slope and the seasonal
// Kendall test, with the blocks as the "seasons".
//
// - Slope: the median of the pairwise slopes (y_j − y_i)/(x_j − x_i) over every pair of points of
//   the same block with x_i ≠ x_j (Theil 1950; Sen 1968, "Estimates of the regression coefficient
//   based on Kendall's tau", JASA 63:1379–1389). Pooling the within-block slopes is the seasonal
//   Kendall slope estimator (Hirsch, Slack & Smith 1982, "Techniques of trend analysis for monthly
//   water quality data", Water Resources Research 18:107–121). Robust: up to ~29% of the points can
//   be arbitrary without carrying the estimate away.
// - Test: per block, Kendall's S = Σ_{i<j} sign(x_j − x_i)·sign(y_j − y_i) with its variance under
//   no trend, corrected for ties in x and in y (Kendall 1975, Rank Correlation Methods, 4th ed.,
//   §4.4; the same formula as R's cor.test(method = "kendall", exact = FALSE)); S and the variances
//   add up over blocks (Hirsch et al. 1982), and z = (S − sign(S))/√Var (continuity correction)
//   gives a two-sided normal p-value. With a single block it is exactly R's cor.test p-value
//   (test/reference/trend-reference.json).

import { median } from './descriptive.js';
import { normalCdf } from './normal.js';

export interface Series {
  x: readonly number[];
  y: readonly number[];
}

export interface KendallTrend {
  /** Kendall's S summed over blocks: above 0 rising, below 0 falling. */
  s: number;
  /** Its variance under no trend, ties corrected. */
  variance: number;
  /** Continuity-corrected normal statistic; 0 when S is 0 or there is no variance. */
  z: number;
  /** Two-sided p-value; 1 when there is nothing to test. */
  p: number;
}

function checkSeries(series: Series): void {
  if (series.x.length !== series.y.length) throw new RangeError('trend: x and y differ in length');
  for (const v of [...series.x, ...series.y]) if (!Number.isFinite(v)) throw new RangeError('trend: non-finite value');
}

/** The pairwise slopes of one block (pairs with equal x have none). */
function pairwiseSlopes(series: Series): number[] {
  const slopes: number[] = [];
  const { x, y } = series;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = x[j]! - x[i]!;
      if (dx !== 0) slopes.push((y[j]! - y[i]!) / dx);
    }
  }
  return slopes;
}

/** Theil–Sen slope pooled over blocks: the median of every within-block pairwise slope; NaN when there is none. */
export function theilSenSlope(blocks: readonly Series[]): number {
  blocks.forEach(checkSeries);
  return median(blocks.flatMap(pairwiseSlopes));
}

/** Sizes of the groups of equal values (only groups of 2 or more). */
function tieGroups(values: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()].filter((t) => t > 1);
}

/** Kendall's S of one block and its tie-corrected variance under independence (Kendall 1975 §4.4). */
export function kendallS(series: Series): { s: number; variance: number } {
  checkSeries(series);
  const { x, y } = series;
  const n = x.length;
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) s += Math.sign(x[j]! - x[i]!) * Math.sign(y[j]! - y[i]!);
  }
  return { s, variance: n < 2 ? 0 : varianceOf(n, tieGroups(x), tieGroups(y)) };
}

function varianceOf(n: number, tx: number[], ty: number[]): number {
  const sum = (ts: number[], f: (t: number) => number) => ts.reduce((a, t) => a + f(t), 0);
  const v0 = n * (n - 1) * (2 * n + 5);
  const vt = sum(tx, (t) => t * (t - 1) * (2 * t + 5));
  const vu = sum(ty, (t) => t * (t - 1) * (2 * t + 5));
  const v1 = sum(tx, (t) => t * (t - 1)) * sum(ty, (t) => t * (t - 1));
  const v2 = sum(tx, (t) => t * (t - 1) * (t - 2)) * sum(ty, (t) => t * (t - 1) * (t - 2));
  return (v0 - vt - vu) / 18 + v1 / (2 * n * (n - 1)) + (n > 2 ? v2 / (9 * n * (n - 1) * (n - 2)) : 0);
}

/** Seasonal Kendall test of a monotone trend, blocks as seasons (Hirsch, Slack & Smith 1982). */
export function seasonalKendall(blocks: readonly Series[]): KendallTrend {
  let s = 0;
  let variance = 0;
  for (const block of blocks) {
    const b = kendallS(block);
    s += b.s;
    variance += b.variance;
  }
  if (s === 0 || !(variance > 0)) return { s, variance, z: 0, p: 1 };
  const z = (s - Math.sign(s)) / Math.sqrt(variance);
  return { s, variance, z, p: Math.min(1, 2 * normalCdf(-Math.abs(z))) };
}
