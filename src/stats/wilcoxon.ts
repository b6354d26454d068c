// The Wilcoxon signed-rank statistic's null distribution, and the ranks behind it, for the
// Hodges–Lehmann interval (hodges-lehmann.ts), which is the set of shifts the signed-rank test does
// not reject. The verdicts' test is the sign-flip test (sign-flip.ts); docs/method.md says why.
//
// Semantics are those of R (stats package, wilcox.test.R, dsignrank/psignrank/qsignrank):
// - zeros are dropped and n counts the non-zero values (Wilcoxon's treatment of zeros);
// - the statistic V is the sum of the ranks of |x| belonging to positive x, ties in |x| getting their
//   average rank;
// - with n < 50 and neither ties nor zeros R uses the exact null distribution of V (Hollander, Wolfe
//   & Chicken, Nonparametric Statistical Methods, 3rd ed. 2014, §3.1; every one of the 2^n sign
//   patterns of the ranks is equally likely under H0), otherwise the normal approximation with mean
//   n(n+1)/4, variance n(n+1)(2n+1)/24 − Σ(t³ − t)/48 over tie groups of size t (HWC §3.1, "ties"),
//   and a continuity correction of ½.
// Non-finite input is an error (R silently drops NA/NaN), so that a broken measurement cannot
// quietly vanish from a verdict.

export interface SignedRankOptions {
  /** Use the exact null distribution when possible. Default: n < 50 (R's default). */
  exact?: boolean;
  /** Continuity correction in the normal approximation. Default true (R's default). */
  correct?: boolean;
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
