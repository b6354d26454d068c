// Fisher–Pitman sign-flip test (the one-sample randomization test) of H0: the distribution of x
// is symmetric about 0.
//
// Under H0 each value is as likely to have come out with the opposite sign, so every one of the
// 2^n sign patterns of the values is equally likely given their sizes; the p-value is the share
// of patterns whose sum is at least as extreme as the observed sum (Fisher, The Design of
// Experiments, 1935, §21, on Darwin's Zea mays pairs; Pitman, Suppl. J. R. Stat. Soc. 4:119, 1937).
// It needs the same assumption as the Wilcoxon signed-rank test and is exact like it, but it
// weighs each value by its size, not its rank, and its attainable levels are every k/2^n rather
// than the few the rank sums allow: at 12 units and a level of 0.0033 the signed-rank test can
// only reject at 10/4096 = 0.0024, and one value of the other sign ranked 6th or higher of 12
// keeps it from rejecting however large the others are.
//
// Exact up to 30 values: the 2^n sums are counted by meeting in the middle (each half's 2^(n/2)
// partial sums, one half sorted, the other searched), so n = 30 costs two lists of 32,768 sums
// (n = 40 would take half a second per metric). Above that, a fixed-seed Monte Carlo over 200,000 patterns with the observed one
// counted in, p = (b + 1)/(m + 1) (Phipson & Smyth, Stat. Appl. Genet. Mol. Biol. 9:39, 2010),
// which is a valid p-value and the same for the same input every time.
//
// Above 1,000 values the Monte Carlo costs 200,000·n additions per metric (minutes at a results
// file's size cap, which report mode reads from a job that ran the pull request's code), and the
// sum is as good as normal: given the sizes |x_i|, S = Σ ±x_i has mean 0 and variance Σx_i²
// exactly (Pitman 1937), and by the Berry–Esseen bound for independent summands its distribution
// is within 0.56·Σ|x_i|³/(Σx_i²)^(3/2) of the normal one everywhere (Shevtsova, Dokl. Math. 82:862,
// 2010). That ratio is 1/√n for n equal sizes; the normal limit is used while it is at most
// 1/√1000 (no value dominates the sum), else the Monte Carlo with as many patterns as keep its cost
// at 200,000 · 1,000 additions, and never fewer than 10,000 (p from 1/10,001 up: valid, coarser).
//
// Zeros stay in: flipping a zero changes nothing, so they only multiply every count by the same
// power of two. Non-finite input is an error, so a broken measurement cannot vanish from a verdict.

import { normalCdf } from './normal.js';
import { createRandom } from './random.js';
import { studentTTwoSided } from './student-t.js';
import { assertFinite } from './wilcoxon.js';

export interface SignFlipOptions {
  /** 'two-sided' (default), 'less' (x tends below 0) or 'greater' (x tends above 0). */
  alternative?: 'two-sided' | 'less' | 'greater';
}

export interface SignFlipResult {
  n: number;
  /** The observed sum of x. */
  statistic: number;
  p: number;
  method: 'exact' | 'monte-carlo' | 'normal';
  /** Sign patterns the test drew or counted (2^n exact; 0 for the normal limit): the work it did, for tests of its cost. */
  patterns: number;
}

const EXACT_MAX = 30;
const MONTE_CARLO_PATTERNS = 200_000;
const MONTE_CARLO_SEED = 0x5eed;
/** Above this many values the normal limit is used where no value dominates. */
const MONTE_CARLO_MAX = 1000;
/** The largest Lyapunov ratio Σ|x|³/(Σx²)^(3/2) the normal limit is used at: that of 1,000 equal sizes. */
const NORMAL_RATIO_MAX = 1 / Math.sqrt(MONTE_CARLO_MAX);
/** Additions one Monte Carlo may cost (patterns × values), and the fewest patterns it draws. */
const MONTE_CARLO_WORK = MONTE_CARLO_PATTERNS * MONTE_CARLO_MAX;
const MONTE_CARLO_MIN_PATTERNS = 10_000;

/** Every sum ±v[0] ± v[1] ± …, in no particular order (2^v.length of them). */
function allSums(v: readonly number[]): Float64Array {
  let sums = new Float64Array([0]);
  for (const value of v) {
    const next = new Float64Array(sums.length * 2);
    for (let i = 0; i < sums.length; i++) {
      next[2 * i] = sums[i]! + value;
      next[2 * i + 1] = sums[i]! - value;
    }
    sums = next;
  }
  return sums;
}

/** How many values of the sorted array are ≤ bound. */
function countAtMost(sorted: Float64Array, bound: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function signFlipTest(x: readonly number[], options: SignFlipOptions = {}): SignFlipResult {
  assertFinite(x, 'signFlipTest');
  const alternative = options.alternative ?? 'two-sided';
  const n = x.length;
  const statistic = x.reduce((a, b) => a + b, 0);
  if (n === 0) return { n, statistic, p: 1, method: 'exact', patterns: 1 };
  // Sums that differ only by rounding count as equal: a pattern that is the observed one (or its
  // mirror) must always count, however the additions were ordered.
  const tolerance = 1e-9 * x.reduce((a, b) => a + Math.abs(b), 0);
  const observedAbs = Math.abs(statistic);
  if (n > MONTE_CARLO_MAX) {
    const normal = normalLimit(x, statistic, tolerance, alternative);
    if (normal) return normal;
  }
  if (n > EXACT_MAX) return monteCarlo(x, statistic, tolerance, alternative, monteCarloPatterns(n));

  const left = allSums(x.slice(0, n >> 1));
  const right = allSums(x.slice(n >> 1)).sort();
  const total = left.length * right.length;
  // #{patterns with sum ≤ bound} and #{≥ bound}, the latter through the mirror image (every
  // pattern's negation is a pattern too).
  const atMost = (bound: number) => left.reduce((count, l) => count + countAtMost(right, bound - l), 0);
  const atLeast = (bound: number) => atMost(-bound);
  let count: number;
  if (alternative === 'less') count = atMost(statistic + tolerance);
  else if (alternative === 'greater') count = atLeast(statistic - tolerance);
  else count = observedAbs <= tolerance ? total : atMost(-observedAbs + tolerance) + atLeast(observedAbs - tolerance);
  return { n, statistic, p: Math.min(1, count / total), method: 'exact', patterns: total };
}

/** The normal limit of S given the sizes, or null when one value weighs too much for it (its Lyapunov ratio is above NORMAL_RATIO_MAX). */
function normalLimit(x: readonly number[], statistic: number, tolerance: number, alternative: SignFlipOptions['alternative']): SignFlipResult | null {
  let squares = 0;
  let cubes = 0;
  for (const v of x) {
    squares += v * v;
    cubes += Math.abs(v) ** 3;
  }
  if (squares === 0) return { n: x.length, statistic, p: 1, method: 'normal', patterns: 0 };
  if (cubes / squares ** 1.5 > NORMAL_RATIO_MAX) return null;
  const sd = Math.sqrt(squares);
  // The same tolerance as the counts: a sum that is the observed one within rounding is as extreme.
  const p =
    alternative === 'less'
      ? normalCdf((statistic + tolerance) / sd)
      : alternative === 'greater'
        ? normalCdf(-(statistic - tolerance) / sd)
        : Math.min(1, 2 * normalCdf(-(Math.abs(statistic) - tolerance) / sd));
  return { n: x.length, statistic, p, method: 'normal', patterns: 0 };
}

/** How many sign patterns the Monte Carlo draws for n values: 200,000 up to 1,000 values, then as many as 200,000,000 additions allow, at least 10,000. */
export function monteCarloPatterns(n: number): number {
  return Math.max(MONTE_CARLO_MIN_PATTERNS, Math.min(MONTE_CARLO_PATTERNS, Math.floor(MONTE_CARLO_WORK / n)));
}

function monteCarlo(x: readonly number[], statistic: number, tolerance: number, alternative: SignFlipOptions['alternative'], patterns: number): SignFlipResult {
  const rand = createRandom(MONTE_CARLO_SEED);
  const observedAbs = Math.abs(statistic);
  let extreme = 0;
  for (let m = 0; m < patterns; m++) {
    let sum = 0;
    let bits = 0;
    for (let i = 0; i < x.length; i++) {
      // 32 random signs from each draw (createRandom's floats carry 32 random bits)
      if (i % 32 === 0) bits = Math.floor(rand() * 4294967296);
      sum += (bits >>> (i % 32)) & 1 ? -x[i]! : x[i]!;
    }
    if (alternative === 'less' ? sum <= statistic + tolerance : alternative === 'greater' ? sum >= statistic - tolerance : Math.abs(sum) >= observedAbs - tolerance) extreme++;
  }
  return { n: x.length, statistic, p: (extreme + 1) / (patterns + 1), method: 'monte-carlo', patterns };
}

/**
 * The one-sided Student t p-value of x's mean (df n − 1), or null unless every value lies
 * strictly on the alternative's side of 0: the sign pattern the sign-flip test ranks as its most
 * extreme, p = 1/2^n, whatever the sizes.
 *
 * Why: with n units the sign-flip test can never go below 1/2^n (1/256 at 8 start pairs), and an
 * interim look of a group-sequential design can ask for far less (0.000028 at the first of three
 * looks at alpha 0.01), so a run could never stop there on a regression however large. Among the
 * patterns that all agree, the t statistic then ranks how far from 0 the values lie against their
 * spread: eight starts all 30% slower, within a few percent of each other, are not the same
 * evidence as eight starts 0.1% to 4% slower. It is a bound, not an assumption-free test: under
 * the sign-flip test's own hypothesis (each value's sign is a fair coin given the sizes) the
 * chance of rejecting is at most 1/2^n × P(the sizes alone give a t beyond the critical value),
 * and that second factor asks the |values| to agree within a few percent of their mean (at 8
 * units and 0.000028, a coefficient of variation below about 0.33); a t-test on sign-symmetric
 * data errs on the conservative side at small levels (Efron, "Student's t-test under symmetry
 * conditions", JASA 64:1278, 1969). Used only where the sign-flip test cannot reach the level
 * (assess/compare.ts); the drawn runs of docs/calibration.md ("A twelfth pass") measure its cost.
 */
export function studentizedAgreement(x: readonly number[], alternative: 'less' | 'greater'): number | null {
  assertFinite(x, 'studentizedAgreement');
  const n = x.length;
  if (n < 2 || !x.every((v) => (alternative === 'less' ? v < 0 : v > 0))) return null;
  const mean = x.reduce((a, b) => a + b, 0) / n;
  const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  if (variance === 0) return 0;
  return studentTTwoSided(mean / Math.sqrt(variance / n), n - 1) / 2;
}
