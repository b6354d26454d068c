// Descriptive statistics. Every function copies before sorting (inputs are never mutated) and returns
// NaN for an empty input or one that contains NaN, so a missing metric shows up as NaN rather than as
// a plausible-looking number.

function sortedCopy(xs: readonly number[]): Float64Array | undefined {
  if (xs.length === 0) return undefined;
  for (const v of xs) if (Number.isNaN(v)) return undefined;
  // A typed array sorts numerically by default (no comparator, no string conversion).
  return Float64Array.from(xs).sort();
}

/** Median: the middle order statistic, or the mean of the two middle ones for an even count. */
export function median(xs: readonly number[]): number {
  const s = sortedCopy(xs);
  if (s === undefined) return Number.NaN;
  return medianOfSorted(s);
}

/** Median of an already sorted, non-empty array-like (used by the Hodges–Lehmann code too). */
export function medianOfSorted(s: ArrayLike<number>): number {
  const n = s.length;
  if (n === 0) return Number.NaN;
  const mid = n >> 1;
  // (a + b) / 2 rather than a + (b - a) / 2: R's median.default does mean(sort(x)[half + 0:1]),
  // and the two agree except for overflow, which finite log-ratios never reach.
  return n % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Sample quantile by linear interpolation between order statistics: Hyndman & Fan (1996) definition 7,
 * R's default `quantile(x, q, type = 7)`. With h = (n − 1)q, lo = ⌊h⌋: x₍lo₎ + (h − lo)(x₍lo+1₎ − x₍lo₎)
 * (0-based order statistics). Written as (1 − f)·a + f·b, as R computes it, so results agree to the bit.
 * Hyndman, R. J. & Fan, Y. (1996) Sample quantiles in statistical packages. Am. Stat. 50:361–365.
 */
export function quantile(xs: readonly number[], q: number): number {
  if (Number.isNaN(q)) return Number.NaN;
  if (q < 0 || q > 1) throw new RangeError(`quantile: q must be in [0, 1], got ${q}`);
  const s = sortedCopy(xs);
  if (s === undefined) return Number.NaN;
  const h = (s.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  const a = s[lo]!;
  const b = s[hi]!;
  const f = h - lo;
  if (f === 0 || a === b) return a;
  return (1 - f) * a + f * b;
}

/**
 * Arithmetic mean with one refinement pass (mean of the residuals added back), the same scheme R's
 * mean.default uses to cancel most of the rounding error of the plain sum.
 */
export function mean(xs: readonly number[]): number {
  const n = xs.length;
  if (n === 0) return Number.NaN;
  let sum = 0;
  for (const v of xs) sum += v;
  const m = sum / n;
  if (!Number.isFinite(m)) return m;
  let residual = 0;
  for (const v of xs) residual += v - m;
  return m + residual / n;
}

/**
 * Sample standard deviation with the n − 1 denominator (Bessel's correction), computed in two passes
 * (mean first, then squared deviations) for numerical stability; R's sd(). NaN for fewer than 2 values.
 */
export function standardDeviation(xs: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return Number.NaN;
  const m = mean(xs);
  let ss = 0;
  for (const v of xs) ss += (v - m) * (v - m);
  return Math.sqrt(ss / (n - 1));
}

/**
 * Median absolute deviation from the median, unscaled: median(|x − median(x)|), R's
 * mad(x, constant = 1). (Multiply by 1.4826 for a consistent estimate of σ under normality.)
 */
export function medianAbsoluteDeviation(xs: readonly number[]): number {
  const m = median(xs);
  if (Number.isNaN(m)) return Number.NaN;
  return median(xs.map((v) => Math.abs(v - m)));
}
