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

import { medianOfSorted } from './descriptive.js';
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

/** Hodges–Lehmann one-sample estimate: the median of the Walsh averages (NaN for an empty x). */
export function hodgesLehmann(x: readonly number[]): number {
  return medianOfSorted(walshAverages(x));
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

function exactInterval(walsh: Float64Array, n: number, confidence: number): { lower: number; upper: number; confidence: number } {
  const total = walsh.length;
  const alpha = 1 - confidence;
  // qu: the critical value; [W(qu), W(total − qu + 1)] (1-based order statistics) covers the shift
  // with probability 1 − 2·P(V ≤ qu − 1) (HWC §3.3).
  const qu = Math.max(1, signedRankQuantile(alpha / 2, n));
  return {
    lower: walsh[qu - 1]!,
    upper: walsh[total - qu]!,
    confidence: 1 - 2 * signedRankCdf(qu - 1, n),
  };
}

function normalInterval(
  x: readonly number[],
  walsh: Float64Array,
  confidence: number,
  correct: boolean,
  estimate: number,
): { lower: number; upper: number; confidence: number } {
  const n = x.length;
  const total = walsh.length;
  const low = walsh[0]!; // = min x
  const high = walsh[total - 1]!; // = max x
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

  // The d at which z(d) − zq changes sign. z(d) does not increase with d. For d between walsh[i] and
  // the next larger Walsh average, V(d) = total − 1 − i (the count of Walsh averages above d).
  const crossing = (zq: number): number => {
    if (zAtLow - zq <= 0) return low;
    if (zAtHigh - zq >= 0) return high;
    for (let i = 0; i < total - 1; i++) {
      if (walsh[i] === walsh[i + 1]) continue;
      // ≤ 0: should z(d) equal zq exactly on a whole step (a measure-zero event), take the step's
      // left end; uniroot would return some point of that step.
      if (zOfV(total - 1 - i) - zq <= 0) return walsh[i]!;
    }
    return high;
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
  const walsh = walshAverages(x);
  const estimate = medianOfSorted(walsh);
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
