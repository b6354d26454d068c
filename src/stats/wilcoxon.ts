// Wilcoxon signed-rank test of H0: the distribution of x is symmetric about 0, two-sided.
//
// Semantics are those of R's wilcox.test(x, mu = 0, alternative = "two.sided") (stats package,
// wilcox.test.R), re-implemented here:
// - zeros are dropped and n counts the non-zero values (Wilcoxon's treatment of zeros);
// - the statistic V is the sum of the ranks of |x| belonging to positive x, ties in |x| getting their
//   average rank;
// - with n < 50 and neither ties nor zeros the p-value comes from the exact null distribution of V
//   (Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed. 2014, §3.1; every one of
//   the 2^n sign patterns of the ranks is equally likely under H0);
// - otherwise from the normal approximation with mean n(n+1)/4, variance
//   n(n+1)(2n+1)/24 − Σ(t³ − t)/48 over tie groups of size t (HWC §3.1, "ties"), and a continuity
//   correction of ½ towards the mean.
// Deliberate differences from R: n = 0 gives p = 1 (R: NaN, or an error for an empty x), and
// non-finite input is an error (R silently drops NA/NaN), so that a broken measurement cannot
// quietly vanish from a verdict.

import { normalCdf } from './normal.js';

export interface SignedRankOptions {
  /** Use the exact null distribution when possible. Default: n < 50 (R's default). */
  exact?: boolean;
  /** Continuity correction in the normal approximation. Default true (R's default). */
  correct?: boolean;
  /**
   * The alternative hypothesis about the centre of x (R's `alternative`): 'two-sided' (default),
   * 'less' (x tends below 0) or 'greater' (x tends above 0).
   */
  alternative?: 'two-sided' | 'less' | 'greater';
}

export interface SignedRankResult {
  /** Number of non-zero values, the n the test works with. */
  n: number;
  /** V: sum of the (average) ranks of |x| over the positive values. */
  statistic: number;
  /** p-value for the chosen alternative (two-sided by default). */
  p: number;
  method: 'exact' | 'normal';
  /** Number of zeros dropped. */
  zeros: number;
  /** Whether |x| (zeros dropped) has tied values. */
  ties: boolean;
}

export function assertFinite(x: readonly number[], where: string): void {
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) throw new RangeError(`${where}: x[${i}] is ${x[i]}; finite numbers only`);
  }
}

export interface AbsoluteRanks {
  /** ranks[i] is the average rank of |values[i]| among all |values| (1-based). */
  ranks: Float64Array;
  /** Σ (t³ − t) over groups of t tied |values|, the tie term of the variance. */
  tieSum: number;
  ties: boolean;
}

/** Average ("mid") ranks of |values|; ties are exact floating-point equality, as in R's rank(). */
export function rankAbsolute(values: ArrayLike<number>): AbsoluteRanks {
  const n = values.length;
  const abs = Float64Array.from({ length: n }, (_, i) => Math.abs(values[i]!));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => abs[a]! - abs[b]!);
  const ranks = new Float64Array(n);
  let tieSum = 0;
  let i = 0;
  while (i < n) {
    let j = i + 1;
    while (j < n && abs[order[j]!] === abs[order[i]!]) j++;
    // Positions i..j−1 (0-based) share the average of ranks i+1..j.
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) ranks[order[k]!] = rank;
    const t = j - i;
    tieSum += t * t * t - t;
    i = j;
  }
  return { ranks, tieSum, ties: tieSum > 0 };
}

const distributionCache = new Map<number, Float64Array>();

function nullDistribution(n: number): Float64Array {
  let dist = distributionCache.get(n);
  if (dist === undefined) {
    // Under H0 each rank k = 1..n enters V with probability ½ independently, so the probability mass
    // function obeys P_k(v) = ½·P_{k−1}(v) + ½·P_{k−1}(v − k) (HWC §3.1; the generating function
    // Π_k (1 + t^k)/2). Every value is a multiple of 2^−n with at most n significant bits, so for
    // n ≤ 53 the recursion is exact in double precision.
    const total = (n * (n + 1)) / 2;
    dist = new Float64Array(total + 1);
    dist[0] = 1;
    for (let k = 1; k <= n; k++) {
      for (let v = (k * (k + 1)) / 2; v >= 0; v--) {
        dist[v] = (dist[v]! + (v >= k ? dist[v - k]! : 0)) / 2;
      }
    }
    distributionCache.set(n, dist);
  }
  return dist;
}

/**
 * Exact null distribution of the signed-rank statistic V for n untied, non-zero observations:
 * element v is P(V = v), v = 0 … n(n+1)/2 (R's dsignrank(v, n)). Returns a fresh copy.
 */
export function signedRankDistribution(n: number): Float64Array {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`signedRankDistribution: n must be a non-negative integer, got ${n}`);
  return nullDistribution(n).slice();
}

/** P(V ≤ v) under H0 for integer v (R's psignrank(v, n)); sums the short tail for accuracy. */
export function signedRankCdf(v: number, n: number): number {
  const dist = nullDistribution(n);
  const total = dist.length - 1;
  const q = Math.floor(v + 1e-7); // R's psignrank rounds x + 1e-7 down the same way
  if (q < 0) return 0;
  if (q >= total) return 1;
  let p = 0;
  if (q <= total / 2) {
    for (let k = 0; k <= q; k++) p += dist[k]!;
    return p;
  }
  // P(V ≤ q) = 1 − P(V ≥ q + 1) = 1 − P(V ≤ total − q − 1) by the symmetry of V about total/2.
  for (let k = 0; k < total - q; k++) p += dist[k]!;
  return 1 - p;
}

/**
 * Smallest integer q with P(V ≤ q) ≥ prob (R's qsignrank(prob, n)), for 0 < prob ≤ ½. The
 * 10·DBL_EPSILON slack is R's: it keeps a probability computed as e.g. 0.05/2 from missing a
 * critical value that it equals up to rounding.
 */
export function signedRankQuantile(prob: number, n: number): number {
  const dist = nullDistribution(n);
  const target = prob - 10 * Number.EPSILON;
  let cumulative = 0;
  let q = 0;
  for (;;) {
    cumulative += dist[q]!;
    if (cumulative >= target || q >= dist.length - 1) return q;
    q++;
  }
}

export function signedRankTest(x: readonly number[], options: SignedRankOptions = {}): SignedRankResult {
  assertFinite(x, 'signedRankTest');
  const correct = options.correct ?? true;
  const nonzero = x.filter((v) => v !== 0);
  const zeros = x.length - nonzero.length;
  const n = nonzero.length;
  const { ranks, tieSum, ties } = rankAbsolute(nonzero);
  let statistic = 0;
  for (let i = 0; i < n; i++) if (nonzero[i]! > 0) statistic += ranks[i]!;
  if (n === 0) return { n, statistic, p: 1, method: zeros > 0 ? 'normal' : 'exact', zeros, ties };

  const total = (n * (n + 1)) / 2;
  const exact = (options.exact ?? n < 50) && !ties && zeros === 0;
  const alternative = options.alternative ?? 'two-sided';
  if (exact && alternative !== 'two-sided') {
    // less: P(V ≤ v); greater: P(V ≥ v) = P(V ≤ total − v) by symmetry (R: psignrank(v − 1, upper)).
    const p = signedRankCdf(alternative === 'less' ? statistic : total - statistic, n);
    return { n, statistic, p, method: 'exact', zeros, ties };
  }
  if (exact) {
    // Two-sided p = 2·min(P(V ≤ v), P(V ≥ v)), capped at 1; the smaller tail is the one on v's side of
    // the centre n(n+1)/4 (R computes it the same way).
    // P(V ≥ v) is taken as P(V ≤ total − v) (V is symmetric about total/2), so the short tail is
    // always summed directly and a p-value of 1e-15 keeps its digits.
    const tail = signedRankCdf(statistic > total / 2 ? total - statistic : statistic, n);
    return { n, statistic, p: Math.min(1, 2 * tail), method: 'exact', zeros, ties };
  }
  const centred = statistic - total / 2;
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieSum / 48);
  if (alternative !== 'two-sided') {
    // R: CORRECTION = ±0.5 towards the alternative's side; p = Φ(z) for less, 1 − Φ(z) for greater.
    const shift = correct ? (alternative === 'greater' ? 0.5 : -0.5) : 0;
    const z = (centred - shift) / sigma;
    return { n, statistic, p: alternative === 'less' ? normalCdf(z) : normalCdf(-z), method: 'normal', zeros, ties };
  }
  const correction = correct ? Math.sign(centred) * 0.5 : 0;
  const z = (centred - correction) / sigma;
  // 2·min(Φ(z), 1 − Φ(z)) = 2·Φ(−|z|); Φ(−|z|) is computed directly, so tiny p-values keep their digits.
  const p = Math.min(1, 2 * normalCdf(-Math.abs(z)));
  return { n, statistic, p, method: 'normal', zeros, ties };
}
