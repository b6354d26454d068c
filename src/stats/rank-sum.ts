// Two-sample location shift: the Hodges–Lehmann estimate, its distribution-free confidence
// interval and the Wilcoxon rank-sum (Mann–Whitney) test, for two independent samples (a stored
// baseline's starts against this run's starts, assess/unpaired.ts).
//
// The estimate of the shift Δ (y − x) is the median of the m·n differences y_j − x_i (Hodges &
// Lehmann 1963, Ann. Math. Stat. 34:598; Hollander, Wolfe & Chicken, Nonparametric Statistical
// Methods, 3rd ed. 2014, §4.2). The interval inverts the rank-sum test (HWC §4.3; Bauer 1972,
// "Constructing confidence sets using rank statistics", JASA 67:687–690): it holds every d for
// which the test of y − d against x does not reject. The Mann–Whitney count U(d) = #{y_j − d > x_i}
// is the number of differences above d, so the bounds are order statistics of the differences.
//
// Which interval and which p: those of R's wilcox.test(y, x, conf.int = TRUE) (wilcox.test.R),
// re-implemented:
// - exact branch (m < 50 and n < 50, no ties in the pooled sample): the bounds are the qu-th
//   smallest and qu-th largest differences, qu = qwilcox(α/2, m, n) (at least 1), with coverage
//   1 − 2·P(U ≤ qu − 1); the p-value from the exact null distribution of U (every one of the
//   C(m+n, m) rankings equally likely, HWC §4.1).
// - normal branch (otherwise): the tie-corrected variance mn/12·((N+1) − Σ(t³−t)/(N(N−1))) and a
//   continuity correction of ½ (HWC §4.1, "ties"). For the interval R solves z(d) = ±z_{α/2} with
//   uniroot (tolerance 1e-4); z(d) is a step function that jumps only at differences, so we take
//   the difference at which it crosses the quantile, found by bisection (as hodges-lehmann.ts does
//   for one sample). Like R, when even [min y − max x, max y − min x] misses the requested level,
//   α is doubled until it is reachable and the confidence reported is the lower one.
// Where we differ from R: the estimate is always the median of the differences (R's normal branch
// reports the root of the uncorrected z(d) = 0, within 1e-4 of it); all values equal gives
// [0, 0] at the estimate (R stops with an error); non-finite values are an error.

import { normalCdf, normalQuantile } from './normal.js';
import { assertFinite } from './wilcoxon.js';

export interface ShiftInterval {
  /** Median of the differences y_j − x_i. */
  estimate: number;
  lower: number;
  upper: number;
  /** Confidence achieved: exact coverage in the exact branch, else the requested (or lowered) level. */
  confidence: number;
  method: 'exact' | 'normal';
}

export interface RankSumTest {
  /** The Mann–Whitney count U of y: #{(i, j): y_j > x_i} + ½·#{y_j = x_i} (R's W for wilcox.test(y, x)). */
  u: number;
  p: number;
  method: 'exact' | 'normal';
}

/** The m·n differences y_j − x_i, sorted ascending. */
export function shiftDifferences(x: readonly number[], y: readonly number[]): Float64Array {
  assertFinite(x, 'shiftDifferences');
  assertFinite(y, 'shiftDifferences');
  const out = new Float64Array(x.length * y.length);
  let k = 0;
  for (const b of y) for (const a of x) out[k++] = b - a;
  return out.sort();
}

/** Two-sample Hodges–Lehmann estimate of the shift of y against x (NaN when either is empty). */
export function shiftEstimate(x: readonly number[], y: readonly number[]): number {
  const d = shiftDifferences(x, y);
  if (d.length === 0) return Number.NaN;
  const mid = d.length >> 1;
  return d.length % 2 === 1 ? d[mid]! : (d[mid - 1]! + d[mid]!) / 2;
}

const countCache = new Map<string, Float64Array>();

/**
 * The number of rankings with each value of U for samples of m and n untied values, u = 0 … mn
 * (R's cwilcox). The counts are the coefficients of the Gaussian binomial [m+n choose m]_q, built
 * by f(i, j) = q^j·f(i−1, j) + f(i, j−1) (Mann & Whitney 1947, Ann. Math. Stat. 18:50).
 */
function rankSumCounts(m: number, n: number): Float64Array {
  const key = `${m},${n}`;
  const known = countCache.get(key);
  if (known) return known;
  // row[j]: the coefficients for (i, j), over i = 0 … m.
  let row: Float64Array[] = Array.from({ length: n + 1 }, () => Float64Array.of(1));
  for (let i = 1; i <= m; i++) {
    const next: Float64Array[] = [Float64Array.of(1)];
    for (let j = 1; j <= n; j++) {
      const poly = new Float64Array(i * j + 1);
      const up = row[j]!; // f(i−1, j), shifted by j
      for (let u = 0; u < up.length; u++) poly[u + j]! += up[u]!;
      const left = next[j - 1]!; // f(i, j−1)
      for (let u = 0; u < left.length; u++) poly[u]! += left[u]!;
      next.push(poly);
    }
    row = next;
  }
  const counts = row[n]!;
  countCache.set(key, counts);
  return counts;
}

/** P(U ≤ u) under H0 for untied samples of m and n (R's pwilcox). */
export function rankSumCdf(u: number, m: number, n: number): number {
  const counts = rankSumCounts(m, n);
  const q = Math.floor(u + 1e-7);
  if (q < 0) return 0;
  if (q >= m * n) return 1;
  let total = 0;
  let below = 0;
  for (let k = 0; k < counts.length; k++) {
    total += counts[k]!;
    if (k <= q) below += counts[k]!;
  }
  return below / total;
}

/** Smallest q with P(U ≤ q) ≥ prob (R's qwilcox), with R's 10·DBL_EPSILON slack. */
export function rankSumQuantile(prob: number, m: number, n: number): number {
  const counts = rankSumCounts(m, n);
  const total = counts.reduce((s, c) => s + c, 0);
  const target = prob - 10 * Number.EPSILON;
  let cumulative = 0;
  for (let q = 0; q < counts.length; q++) {
    cumulative += counts[q]! / total;
    if (cumulative >= target) return q;
  }
  return m * n;
}

interface Pooled {
  /** The sum of y's mid-ranks in the pooled sample, minus its smallest value n(n+1)/2: U of y. */
  u: number;
  /** Σ (t³ − t) over tie groups of the pooled sample. */
  tieSum: number;
}

function pooledRanks(x: readonly number[], y: readonly number[]): Pooled {
  const all = [...x.map((v) => ({ v, y: false })), ...y.map((v) => ({ v, y: true }))].sort((a, b) => a.v - b.v);
  let rankSum = 0;
  let tieSum = 0;
  for (let i = 0; i < all.length; ) {
    let j = i + 1;
    while (j < all.length && all[j]!.v === all[i]!.v) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (all[k]!.y) rankSum += rank;
    const t = j - i;
    tieSum += t * t * t - t;
    i = j;
  }
  return { u: rankSum - (y.length * (y.length + 1)) / 2, tieSum };
}

function sigmaOf(m: number, n: number, tieSum: number): number {
  const N = m + n;
  return Math.sqrt(((m * n) / 12) * (N + 1 - tieSum / (N * (N - 1))));
}

/** Whether R takes the exact branch: both samples under 50 and no ties in the pooled sample. */
function exactBranch(x: readonly number[], y: readonly number[], tieSum: number): boolean {
  return x.length < 50 && y.length < 50 && tieSum === 0;
}

/**
 * Wilcoxon rank-sum test of y against x, one-sided: 'greater' tests whether y is shifted up
 * (R's wilcox.test(y, x, alternative)). Exact without ties below 50 per sample, else normal with
 * tie and continuity corrections, as R.
 */
export function rankSumTest(x: readonly number[], y: readonly number[], alternative: 'less' | 'greater'): RankSumTest {
  assertFinite(x, 'rankSumTest');
  assertFinite(y, 'rankSumTest');
  const m = x.length;
  const n = y.length;
  if (m === 0 || n === 0) throw new RangeError('rankSumTest: both samples need at least one value');
  const { u, tieSum } = pooledRanks(x, y);
  if (exactBranch(x, y, tieSum)) {
    // U of y counts the pairs where y is above: large U speaks for 'greater'.
    const p = alternative === 'greater' ? 1 - rankSumCdf(u - 1, n, m) : rankSumCdf(u, n, m);
    return { u, p: Math.min(1, p), method: 'exact' };
  }
  const sigma = sigmaOf(m, n, tieSum);
  if (sigma === 0) return { u, p: 1, method: 'normal' };
  const centred = u - (m * n) / 2;
  const z = (centred - (alternative === 'greater' ? 0.5 : -0.5)) / sigma;
  return { u, p: alternative === 'greater' ? 1 - normalCdf(z) : normalCdf(z), method: 'normal' };
}

/**
 * The two-sample Hodges–Lehmann estimate of the shift of y against x with the distribution-free
 * interval from inverting the rank-sum test, as R's wilcox.test(y, x, conf.int = TRUE,
 * conf.level = confidence) gives it (see the notes at the top of this file).
 */
export function shiftInterval(x: readonly number[], y: readonly number[], confidence = 0.95): ShiftInterval {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`shiftInterval: confidence must be in (0, 1), got ${confidence}`);
  const diffs = shiftDifferences(x, y);
  const m = x.length;
  const n = y.length;
  if (diffs.length === 0) return { estimate: Number.NaN, lower: Number.NaN, upper: Number.NaN, confidence: 0, method: 'normal' };
  const mid = diffs.length >> 1;
  const estimate = diffs.length % 2 === 1 ? diffs[mid]! : (diffs[mid - 1]! + diffs[mid]!) / 2;
  const { tieSum } = pooledRanks(x, y);
  const alpha = 1 - confidence;
  if (exactBranch(x, y, tieSum)) {
    const qu = Math.max(1, rankSumQuantile(alpha / 2, m, n));
    const total = m * n;
    return {
      estimate,
      lower: diffs[qu - 1]!,
      upper: diffs[total - qu]!,
      confidence: 1 - 2 * rankSumCdf(qu - 1, m, n),
      method: 'exact',
    };
  }
  return { estimate, ...normalShiftInterval(x, y, diffs, confidence), method: 'normal' };
}

/** R's wdiff(d, zq) + zq: the corrected normal statistic of the rank-sum test of y − d against x. */
function shiftedZ(x: readonly number[], y: readonly number[], d: number): number {
  const shifted = y.map((v) => v - d);
  const { u, tieSum } = pooledRanks(x, shifted);
  const sigma = sigmaOf(x.length, y.length, tieSum);
  const centred = u - (x.length * y.length) / 2;
  return (centred - Math.sign(centred) * 0.5) / sigma;
}

function normalShiftInterval(
  x: readonly number[],
  y: readonly number[],
  diffs: Float64Array,
  confidence: number,
): { lower: number; upper: number; confidence: number } {
  const low = diffs[0]!;
  const high = diffs[diffs.length - 1]!;
  if (low === high) return { lower: low, upper: high, confidence };
  const zAtLow = shiftedZ(x, y, low);
  const zAtHigh = shiftedZ(x, y, high);
  let alpha = 1 - confidence;
  while (alpha < 1 && (zAtLow - normalQuantile(1 - alpha / 2) < 0 || zAtHigh - normalQuantile(alpha / 2) > 0)) alpha *= 2;
  const achieved = alpha >= 1 ? 0 : 1 - alpha;
  if (alpha >= 1) {
    const mid = (low + high) / 2;
    return { lower: mid, upper: mid, confidence: achieved };
  }
  // z(d) does not increase with d and is constant between two consecutive distinct differences.
  // The crossing is the first difference d_i after which (up to the next distinct one) z − zq ≤ 0.
  const after = (i: number): number | null => {
    let k = i + 1;
    while (k < diffs.length && diffs[k] === diffs[i]) k++;
    return k === diffs.length ? null : (diffs[i]! + diffs[k]!) / 2;
  };
  const crossing = (zq: number): number => {
    if (zAtLow - zq <= 0) return low;
    if (zAtHigh - zq >= 0) return high;
    let lo = 0;
    let hi = diffs.length - 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const gap = after(mid);
      if (gap === null || shiftedZ(x, y, gap) - zq <= 0) hi = mid;
      else lo = mid + 1;
    }
    return diffs[lo]!;
  };
  return { lower: crossing(normalQuantile(1 - alpha / 2)), upper: crossing(normalQuantile(alpha / 2)), confidence: achieved };
}
