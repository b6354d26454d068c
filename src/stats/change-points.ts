// Change points in a series of measurements (one value per commit of main), for `perfgate history`.
//
// The statistic is E-divisive means: Matteson & James, "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 109(505), 2014 (arXiv:1306.4933), with
// α = 1. A candidate split of a stretch Z into X = Z[start, τ) and Y = Z[τ, κ) scores
//
//   Q̂(X, Y) = 2/(n+m) Σ|Xᵢ−Yⱼ| − 2m/((n+m)(n−1)) Σ_{i<k}|Xᵢ−X_k| − 2n/((n+m)(m−1)) Σ_{j<k}|Yⱼ−Y_k|
//
// (n = |X|, m = |Y|; M&J's (mn/(m+n))·Ê), and the stretch's candidate is the τ of the (τ, κ) that
// maximizes it. Divisive: the best candidate over all stretches between the change points found
// so far is tested, kept when significant, and the search goes on until one is not.
//
// Two significance tests:
// - `detectChangePoints`: Apache Otava's default (Fleming et al., "Hunter: Using Change Point
//   Detection to Hunt for Performance Regressions", ICPE 2023, doi:10.1145/3578244.3583719).
//   E-divisive candidates in sliding windows, each tested with Student's two-sample t-test at a
//   relaxed level (the "weak" change points), then a merge step that drops the weakest point
//   (highest p, else smallest relative change) and tests its neighbours again until every point
//   left passes. Deterministic, and fast enough for every metric of a long history.
// - `eDivisivePermutation`: Matteson & James's own test. The points within each stretch are
//   permuted, and p = (1 + #{permuted Q̂ ≥ Q̂}) / (R + 1), as in their R package ecp. Seeded.
//
// test/reference/change-points-reference.py runs Apache Otava on fixed series; the unit test
// checks that both give the change points Otava finds (the t-test pipeline to the p-value).

import { createRandom } from './random.js';
import { studentTTwoSided } from './student-t.js';

/** A stretch of the series, [start, end) in its indices. */
interface Interval {
  start: number;
  end: number;
}

/** The best split of one stretch: τ, the index of the first point after the change, and its Q̂. */
export interface Candidate {
  index: number;
  qhat: number;
}

/** A change point found by the t-test pipeline, with the stretches around it. */
export interface ChangePoint extends Candidate {
  /** Two-sided p of Student's t-test between the stretches before and after (pooled variance). */
  pValue: number;
  meanBefore: number;
  meanAfter: number;
  /** Population standard deviations (divisor n), as Otava computes them. */
  stdBefore: number;
  stdAfter: number;
}

/** meanAfter / meanBefore − 1 (0 when meanBefore is 0). */
export function forwardChange(point: Pick<ChangePoint, 'meanBefore' | 'meanAfter'>): number {
  return point.meanBefore === 0 ? 0 : point.meanAfter / point.meanBefore - 1;
}

/** The larger of the relative changes in either direction: the merge step's measure of a point's size. */
function magnitude(point: ChangePoint): number {
  const backward = point.meanAfter === 0 ? 0 : point.meanBefore / point.meanAfter - 1;
  return Math.max(Math.abs(forwardChange(point)), Math.abs(backward));
}

/**
 * Q̂ of every split of a series, O(n²) per stretch. `prefix[c·(n+1) + r]` = Σ_{i<r} |x_i − x_c|,
 * so each sum in Q̂ grows by one prefix difference when τ or κ moves by one.
 */
class QHat {
  private readonly prefix: Float64Array;
  private readonly n: number;

  constructor(series: ArrayLike<number>) {
    const n = series.length;
    this.n = n;
    this.prefix = new Float64Array(n * (n + 1));
    for (let c = 0; c < n; c++) {
      const row = c * (n + 1);
      for (let r = 0; r < n; r++) this.prefix[row + r + 1] = this.prefix[row + r]! + Math.abs(series[r]! - series[c]!);
    }
  }

  /** Σ_{i∈[from, to)} |x_i − x_column|. */
  private sum(column: number, from: number, to: number): number {
    const row = column * (this.n + 1);
    return this.prefix[row + to]! - this.prefix[row + from]!;
  }

  /** The split of [start, end) with the largest Q̂; the first in (τ, κ) order on ties, as numpy's argmax. */
  candidate({ start, end }: Interval): Candidate {
    let best: Candidate = { index: start + 1, qhat: Number.NEGATIVE_INFINITY };
    let withinX = 0;
    for (let tau = start + 1; tau < end; tau++) {
      if (tau > start + 1) withinX += this.sum(tau - 1, start, tau - 1);
      const n = tau - start;
      let cross = 0;
      let withinY = 0;
      for (let kappa = tau + 1; kappa <= end; kappa++) {
        const added = kappa - 1;
        cross += this.sum(added, start, tau);
        withinY += this.sum(added, tau, added);
        const m = kappa - tau;
        const q =
          (2 / (n + m)) * cross - (n > 1 ? ((2 * m) / ((n + m) * (n - 1))) * withinX : 0) - (m > 1 ? ((2 * n) / ((n + m) * (m - 1))) * withinY : 0);
        if (q > best.qhat) best = { index: tau, qhat: q };
      }
    }
    return best;
  }

  /** The best candidate over the stretches that hold two points or more; null when none does. */
  next(intervals: readonly Interval[]): Candidate | null {
    let best: Candidate | null = null;
    for (const interval of intervals) {
      if (interval.end - interval.start < 2) continue;
      const c = this.candidate(interval);
      if (best === null || c.qhat > best.qhat) best = c;
    }
    return best;
  }
}

/** The stretches between sorted change points, empty ones left out. */
function intervalsBetween(points: readonly Candidate[], length: number): Interval[] {
  const cuts = [0, ...points.map((p) => p.index), length];
  const out: Interval[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) if (cuts[i] !== cuts[i + 1]) out.push({ start: cuts[i]!, end: cuts[i + 1]! });
  return out;
}

function meanAndStd(xs: ArrayLike<number>, from: number, to: number): { mean: number; std: number } {
  const n = to - from;
  let sum = 0;
  for (let i = from; i < to; i++) sum += xs[i]!;
  const mean = sum / n;
  if (n < 2) return { mean, std: 0 };
  let ss = 0;
  for (let i = from; i < to; i++) ss += (xs[i]! - mean) ** 2;
  return { mean, std: Math.sqrt(ss / n) };
}

/**
 * Student's two-sample t-test with pooled variance between [a, b) and [b, c), from the population
 * standard deviations (Otava's TTestSignificanceTester with scipy's ttest_ind_from_stats).
 */
function tTest(series: ArrayLike<number>, candidate: Candidate, a: number, b: number, c: number): ChangePoint {
  const left = meanAndStd(series, a, b);
  const right = meanAndStd(series, b, c);
  const n1 = b - a;
  const n2 = c - b;
  let pValue = 1;
  if (n1 + n2 > 2) {
    const df = n1 + n2 - 2;
    const pooled = ((n1 - 1) * left.std ** 2 + (n2 - 1) * right.std ** 2) / df;
    const se = Math.sqrt(pooled * (1 / n1 + 1 / n2));
    const diff = left.mean - right.mean;
    // Two flat stretches: a different level is certain (t infinite), the same one is no change.
    pValue = se > 0 ? studentTTwoSided(diff / se, df) : diff !== 0 ? 0 : 1;
  }
  return { ...candidate, pValue, meanBefore: left.mean, meanAfter: right.mean, stdBefore: left.std, stdAfter: right.std };
}

/**
 * The t-test of `candidate` against the stretches around it: a new point splits the stretch it
 * falls in; a point already found (it ends a stretch) compares the two stretches it separates.
 */
function testAt(series: ArrayLike<number>, candidate: Candidate, intervals: readonly Interval[]): ChangePoint {
  for (let i = 0; i < intervals.length; i++) {
    const interval = intervals[i]!;
    if (interval.end === candidate.index && i + 1 < intervals.length) return tTest(series, candidate, interval.start, interval.end, intervals[i + 1]!.end);
    if (interval.start < candidate.index && candidate.index < interval.end) return tTest(series, candidate, interval.start, candidate.index, interval.end);
  }
  throw new RangeError(`change point ${candidate.index} lies in no stretch of the series`);
}

/** E-divisive on `series[start, end)` with the t-test at `maxPValue`; indices are the series'. */
function divideWindow(series: ArrayLike<number>, start: number, end: number, maxPValue: number): ChangePoint[] {
  const window = Array.from({ length: end - start }, (_, i) => series[start + i]!);
  const q = new QHat(window);
  const found: ChangePoint[] = [];
  for (;;) {
    const intervals = intervalsBetween(found, window.length);
    const candidate = q.next(intervals);
    if (candidate === null) break;
    const point = testAt(window, candidate, intervals);
    if (!(point.pValue <= maxPValue)) break;
    found.push(point);
    found.sort((x, y) => x.index - y.index);
  }
  return found.map((p) => ({ ...p, index: p.index + start }));
}

export interface ChangePointOptions {
  /** Points per sliding window of the split step (Otava's default: 50). */
  windowLength?: number;
  /** Significance level of the final change points (Otava's default: 0.001). */
  maxPValue?: number;
  /** Relative change below which a significant point is still merged away (Otava's default: 0). */
  minMagnitude?: number;
}

export const CHANGE_POINT_DEFAULTS = { windowLength: 50, maxPValue: 0.001, minMagnitude: 0 } as const;

/**
 * Change points of `series` by Otava's split and merge (see the top of this file). Each point's
 * index is the first value after the change; its statistics compare the stretches between its
 * neighbouring change points.
 */
export function detectChangePoints(series: readonly number[], options: ChangePointOptions = {}): ChangePoint[] {
  const { windowLength, maxPValue, minMagnitude } = { ...CHANGE_POINT_DEFAULTS, ...options };
  if (!Number.isInteger(windowLength) || windowLength < 2) throw new RangeError(`windowLength must be a whole number ≥ 2, got ${windowLength}`);
  if (series.some((x) => !Number.isFinite(x))) throw new RangeError('detectChangePoints: every value must be a finite number');
  // Split: windows overlapping by half, each searched at a relaxed level (Otava's first pass:
  // 10× the level below 0.05, 2× below 0.5), so the merge step has every plausible point to judge.
  const firstPass = maxPValue < 0.05 ? maxPValue * 10 : maxPValue < 0.5 ? maxPValue * 2 : maxPValue;
  const step = Math.floor(windowLength / 2);
  let weak: Candidate[] = [];
  for (let start = 0; start < series.length; ) {
    const end = Math.min(start + windowLength, series.length);
    const found = divideWindow(series, start, end, firstPass);
    // The next window starts at the last point found, when that is further on than half a window.
    start = Math.max(found.length ? found[found.length - 1]!.index : 0, start + step);
    for (const point of found) if (!weak.some((w) => w.index === point.index)) weak.push({ index: point.index, qhat: point.qhat });
  }
  weak = weak.sort((a, b) => a.index - b.index);
  let intervals = intervalsBetween(weak, series.length);
  const points = weak.map((c) => testAt(series, c, intervals));

  // Merge: drop the weakest point until every one left is significant and big enough.
  while (points.length) {
    let weakest = argBest(points, (p) => p.pValue, 'max');
    if (points[weakest]!.pValue < maxPValue) {
      weakest = argBest(points, magnitude, 'min');
      if (magnitude(points[weakest]!) > minMagnitude) break;
    }
    points.splice(weakest, 1);
    intervals = intervalsBetween(points, series.length);
    // Otava tests again the point that followed the removed one and the point after that, not the
    // one before it, whose later stretch also grew: that point keeps its earlier statistics. Done
    // the same way here so that the points found are Otava's (the reference test); the sizes
    // perfgate reports are computed again from the final stretches (history/series.ts).
    for (const i of [weakest, weakest + 1]) {
      if (i >= 0 && i < points.length) points[i] = testAt(series, points[i]!, intervals);
    }
  }
  return points;
}

/** Index of the first largest (or smallest) key, as Python's max()/min(). */
function argBest<T>(items: readonly T[], key: (item: T) => number, which: 'max' | 'min'): number {
  let best = 0;
  for (let i = 1; i < items.length; i++) {
    const k = key(items[i]!);
    const b = key(items[best]!);
    if (which === 'max' ? k > b : k < b) best = i;
  }
  return best;
}

export interface PermutationOptions {
  /** Permutations per test (ecp's default: 199). */
  permutations?: number;
  /** Significance level (ecp's default: 0.05). */
  maxPValue?: number;
  seed: number;
}

/** A change point of the permutation test. */
export interface PermutationChangePoint extends Candidate {
  pValue: number;
}

/**
 * E-divisive with Matteson & James's permutation test, over the whole series: the best candidate
 * is kept while fewer than a `maxPValue` share of permutations (points shuffled within each
 * stretch) reach its Q̂. The same seed gives the same points.
 */
export function eDivisivePermutation(series: readonly number[], options: PermutationOptions): PermutationChangePoint[] {
  const permutations = options.permutations ?? 199;
  const maxPValue = options.maxPValue ?? 0.05;
  if (series.some((x) => !Number.isFinite(x))) throw new RangeError('eDivisivePermutation: every value must be a finite number');
  const rand = createRandom(options.seed);
  const q = new QHat(series);
  const found: PermutationChangePoint[] = [];
  for (;;) {
    const intervals = intervalsBetween(found, series.length);
    const candidate = q.next(intervals);
    if (candidate === null) break;
    let atLeast = 0;
    const shuffled = series.slice();
    for (let r = 0; r < permutations; r++) {
      for (const { start, end } of intervals) {
        // Fisher–Yates within the stretch (Knuth, TAOCP vol. 2, §3.4.2, Algorithm P).
        for (let i = end - 1; i > start; i--) {
          const j = start + Math.floor(rand() * (i - start + 1));
          const tmp = shuffled[i]!;
          shuffled[i] = shuffled[j]!;
          shuffled[j] = tmp;
        }
      }
      if (new QHat(shuffled).next(intervals)!.qhat >= candidate.qhat) atLeast++;
    }
    const pValue = (1 + atLeast) / (permutations + 1);
    if (pValue > maxPValue) break;
    found.push({ ...candidate, pValue });
    found.sort((a, b) => a.index - b.index);
  }
  return found;
}
