// Hodges–Lehmann estimate of a location shift and its distribution-free confidence interval.
//
// The estimate is the median of the n(n+1)/2 Walsh averages (x_i + x_j)/2, i ≤ j (Hodges & Lehmann
// 1963, Ann. Math. Stat. 34:598; Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed.
// 2014, §3.2). The interval inverts the Wilcoxon signed-rank test (HWC §3.3): it holds every shift d
// for which the test on x − d does not reject. Because V(d), the signed-rank statistic of x − d, equals
// the number of Walsh averages above d (Tukey's identity, HWC §3.3), the bounds are order statistics of
// the Walsh averages.
//
// Which interval: the same as R's wilcox.test(x, conf.int = TRUE, conf.level) (wilcox.test.R),
// re-implemented:
// - exact branch (fewer than 50 non-zero values, no ties in |x|, no zeros): the lower bound is the
//   qu-th smallest Walsh average and the upper the qu-th largest, qu being the exact critical value of
//   V, qsignrank(α/2, n) (at least 1); the coverage achieved is 1 − 2·P(V ≤ qu − 1) (Bauer 1972,
//   "Constructing confidence sets using rank statistics", JASA 67:687–690; HWC §3.3).
// - normal branch (otherwise): R solves z(d) = ±z_{α/2} with uniroot, where z(d) is the tie- and
//   continuity-corrected normal statistic of the test on x − d (Bauer 1972 §3). z(d) is a step function
//   of d that jumps only at Walsh averages and between two of them depends on d only through V(d)
//   (the tie groups of |x − d| there are just the groups of equal x), so the root is the Walsh average
//   at which z(d) crosses the quantile. We find that Walsh average directly; R's uniroot converges to
//   it, within its tolerance tol.root (default 1e-4, absolute). With tol.root tiny our bounds equal
//   R's to ~1e-12; with R's default they differ by up to 1e-4 (test/unit/stats.test.ts checks both).
//   Like R, when even the widest interval [min x, max x] misses the requested level, α is doubled
//   until it is reachable and the confidence reported is the lower one.
//
// Where we differ from R, on purpose:
// 1. The estimate is always the median of the Walsh averages. In its normal branch R reports instead
//    the root of the uncorrected z(d) = 0 (a "(pseudo)median" found by uniroot, tolerance 1e-4); the
//    two agree up to that tolerance and one Walsh-average step. Ours is the same number as
//    hodgesLehmann(x) in every branch.
// 2. Zeros are kept when building the interval. R drops the values equal to mu (0 here) before it
//    builds the interval, which is right for the test at d = 0 but not for the test at d ≠ 0 that the
//    interval inverts: there those observations are ordinary values (HWC §3.3 uses all n observations).
//    Dropping them can even leave the estimate outside the interval (many unchanged slices of a
//    whole-millisecond latency metric and a few noisy ones). With zeros present we therefore equal
//    R's normal-branch interval of the whole sample, which R itself gives for wilcox.test(x, mu = m,
//    exact = FALSE, conf.int = TRUE) with any m that is no value of x.
// 3. Degenerate samples: all values equal gives [c, c] (R: NaN); a sample so small that no α < 1
//    works (e.g. n = 2) gives [estimate, estimate] with confidence 0 (R: [median(x), median(x)]).
// 4. Non-finite values are an error (R drops NA/NaN and lets ±Inf through).

import { normalQuantile } from './normal.js';
import {
  assertFinite,
  rankAbsolute,
  type SignedRankOptions,
  signedRankCdf,
  signedRankQuantile,
} from './wilcoxon.js';

export interface HodgesLehmannInterval {
  /** Median of the Walsh averages, always equal to hodgesLehmann(x). */
  estimate: number;
  lower: number;
  upper: number;
  /** Confidence actually achieved: exact coverage in the exact branch; in the normal branch the
   * requested level, or the lower one R falls back to when the sample is too small for it. */
  confidence: number;
  method: 'exact' | 'normal';
}

/** All n(n+1)/2 Walsh averages (x_i + x_j)/2, i ≤ j, sorted ascending. */
export function walshAverages(x: readonly number[]): Float64Array {
  assertFinite(x, 'walshAverages');
  const n = x.length;
  const out = new Float64Array((n * (n + 1)) / 2);
  let k = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) out[k++] = (x[i]! + x[j]!) / 2;
  }
  return out.sort();
}

/**
 * Order statistics of the Walsh averages: the sorted array while it is small, else a selection
 * that never builds it. The sorted array costs n²/2 numbers and n² log n time: 16,000 values
 * are 128 million averages (1 GiB). The selection finds the k-th smallest average by bisecting
 * over the doubles themselves (ordered as integers, 64 steps), each step counting the averages
 * at most d in O(n) with two pointers over the sorted values, since fl((a + b)/2) grows with a
 * and with b. The smallest d with at least k averages ≤ d is an average, computed the same way
 * as the array's, so both give the same number.
 */
export interface WalshOrder {
  /** How many Walsh averages there are: n(n + 1)/2. */
  total: number;
  /** The k-th smallest (0-based). */
  at(k: number): number;
}

/** Above this many values the Walsh averages are selected, not sorted (the array would be 125,250 numbers). */
const WALSH_SORT_MAX = 500;

export function walshOrder(x: readonly number[]): WalshOrder {
  if (x.length <= WALSH_SORT_MAX) {
    const walsh = walshAverages(x);
    return { total: walsh.length, at: (k) => walsh[k]! };
  }
  assertFinite(x, 'walshOrder');
  const sorted = Float64Array.from(x).sort();
  const n = sorted.length;
  const total = (n * (n + 1)) / 2;
  const countAtMost = (d: number): number => {
    let count = 0;
    let j = n - 1;
    for (let i = 0; i < n; i++) {
      while (j >= i && (sorted[i]! + sorted[j]!) / 2 > d) j--;
      if (j < i) break;
      count += j - i + 1;
    }
    return count;
  };
  const cache = new Map<number, number>();
  return {
    total,
    at(k) {
      const known = cache.get(k);
      if (known !== undefined) return known;
      // Bisect over the ordered integer keys of the doubles between the smallest and largest average.
      let lo = orderedKey(sorted[0]!);
      let hi = orderedKey(sorted[n - 1]!);
      while (lo < hi) {
        const mid = lo + (hi - lo) / 2n;
        if (countAtMost(fromOrderedKey(mid)) >= k + 1) hi = mid;
        else lo = mid + 1n;
      }
      const value = fromOrderedKey(lo);
      cache.set(k, value);
      return value;
    },
  };
}

const keyView = new DataView(new ArrayBuffer(8));

/** A double's bits as an integer that orders like the doubles (−0 and +0 map to neighbours; both equal 0). */
function orderedKey(value: number): bigint {
  keyView.setFloat64(0, value === 0 ? 0 : value);
  const bits = keyView.getBigInt64(0);
  return bits < 0n ? -(bits & 0x7fffffffffffffffn) - 1n : bits;
}

function fromOrderedKey(key: bigint): number {
  keyView.setBigInt64(0, key < 0n ? (-(key + 1n)) | -0x8000000000000000n : key);
  return keyView.getFloat64(0);
}

/** The median of the Walsh averages, as medianOfSorted takes it. */
function walshMedian(order: WalshOrder): number {
  if (order.total === 0) return Number.NaN;
  const mid = order.total >> 1;
  return order.total % 2 === 1 ? order.at(mid) : (order.at(mid - 1) + order.at(mid)) / 2;
}

/** Hodges–Lehmann one-sample estimate: the median of the Walsh averages (NaN for an empty x). */
export function hodgesLehmann(x: readonly number[]): number {
  return walshMedian(walshOrder(x));
}

/** R's W(d) in wilcox.test: the corrected normal statistic of the signed-rank test of x − d, computed
 * from scratch (zeros of x − d dropped, average ranks, tie-corrected variance). */
function shiftedStatistic(x: readonly number[], d: number, correct: boolean): number {
  const xd = x.map((v) => v - d).filter((v) => v !== 0);
  const n = xd.length;
  const { ranks, tieSum } = rankAbsolute(xd);
  let v = 0;
  for (let i = 0; i < n; i++) if (xd[i]! > 0) v += ranks[i]!;
  const centred = v - (n * (n + 1)) / 4;
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieSum / 48);
  return (centred - (correct ? Math.sign(centred) * 0.5 : 0)) / sigma;
}

function exactInterval(walsh: WalshOrder, n: number, confidence: number): { lower: number; upper: number; confidence: number } {
  const total = walsh.total;
  const alpha = 1 - confidence;
  // qu: the critical value; [W(qu), W(total − qu + 1)] (1-based order statistics) covers the shift
  // with probability 1 − 2·P(V ≤ qu − 1) (HWC §3.3).
  const qu = Math.max(1, signedRankQuantile(alpha / 2, n));
  return {
    lower: walsh.at(qu - 1),
    upper: walsh.at(total - qu),
    confidence: 1 - 2 * signedRankCdf(qu - 1, n),
  };
}

function normalInterval(
  x: readonly number[],
  walsh: WalshOrder,
  confidence: number,
  correct: boolean,
  estimate: number,
): { lower: number; upper: number; confidence: number } {
  const n = x.length;
  const total = walsh.total;
  const low = Math.min(...x); // the smallest Walsh average
  const high = Math.max(...x); // the largest
  if (low === high) return { lower: low, upper: high, confidence };

  // Between consecutive distinct Walsh averages no x − d is 0 and |x − d| ties only within groups of
  // equal x, so the variance of V(d) there is one constant.
  const sorted = Float64Array.from(x).sort();
  let tieSum = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && sorted[j] === sorted[i]) j++;
    const t = j - i;
    tieSum += t * t * t - t;
    i = j;
  }
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieSum / 48);
  const zOfV = (v: number): number => {
    const centred = v - total / 2;
    return (centred - (correct ? Math.sign(centred) * 0.5 : 0)) / sigma;
  };
  // At the ends R evaluates W exactly at d = min x and d = max x, where the values equal to d are
  // zeros of x − d and get dropped; those two numbers decide reachability, as in R.
  const zAtLow = shiftedStatistic(x, low, correct);
  const zAtHigh = shiftedStatistic(x, high, correct);

  let alpha = 1 - confidence;
  while (alpha < 1) {
    if (zAtLow - normalQuantile(1 - alpha / 2) < 0 || zAtHigh - normalQuantile(alpha / 2) > 0) alpha *= 2;
    else break;
  }
  const achieved = alpha >= 1 || 1 - confidence < alpha * 0.75 ? 1 - Math.min(1, alpha) : confidence;
  if (alpha >= 1) return { lower: estimate, upper: estimate, confidence: achieved };

  // The d at which z(d) − zq changes sign. z(d) does not increase with d. For d between the i-th
  // smallest Walsh average and the next larger one, V(d) = total − 1 − i (the count above d), so
  // z − zq, as a function of i, does not increase either: the first i where it is ≤ 0 is found by
  // bisection, and the answer is that Walsh average (a run of equal averages ends at the same
  // value). ≤ 0: should z(d) equal zq exactly on a whole step (a measure-zero event), take the
  // step's left end; uniroot would return some point of that step.
  const crossing = (zq: number): number => {
    if (zAtLow - zq <= 0) return low;
    if (zAtHigh - zq >= 0) return high;
    let lo = 0;
    let hi = total - 1; // i = total − 1 stands for "none before the last": the answer is then high
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (zOfV(total - 1 - mid) - zq <= 0) hi = mid;
      else lo = mid + 1;
    }
    return lo === total - 1 ? high : walsh.at(lo);
  };
  return {
    lower: crossing(normalQuantile(1 - alpha / 2)),
    upper: crossing(normalQuantile(alpha / 2)),
    confidence: achieved,
  };
}

/**
 * Hodges–Lehmann estimate with the distribution-free confidence interval from inverting the Wilcoxon
 * signed-rank test, matching R's wilcox.test(x, conf.int = TRUE, conf.level = confidence) bounds (see
 * the notes at the top of this file for the few deliberate differences).
 */
export function hodgesLehmannInterval(
  x: readonly number[],
  confidence = 0.95,
  options: SignedRankOptions = {},
): HodgesLehmannInterval {
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`hodgesLehmannInterval: confidence must be in (0, 1), got ${confidence}`);
  }
  const walsh = walshOrder(x);
  const estimate = walshMedian(walsh);
  if (x.length === 0) return { estimate, lower: Number.NaN, upper: Number.NaN, confidence: 0, method: 'normal' };

  const nonzero = x.filter((v) => v !== 0);
  const zeros = x.length - nonzero.length;
  const { ties } = rankAbsolute(nonzero);
  // Branch choice as in R's wilcox.test: exact only without ties and zeros.
  if ((options.exact ?? nonzero.length < 50) && !ties && zeros === 0) {
    return { estimate, ...exactInterval(walsh, x.length, confidence), method: 'exact' };
  }
  return { estimate, ...normalInterval(x, walsh, confidence, options.correct ?? true, estimate), method: 'normal' };
}
