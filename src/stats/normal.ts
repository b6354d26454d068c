// The standard normal distribution function and its inverse, both to near machine precision,
// including far tails (a Wilcoxon p-value of 1e-20 must come out right, not as 0 or 1 − 1).

// Horner evaluation of c[0] + c[1]·t + … + c[k]·t^k.
function polynomial(c: readonly number[], t: number): number {
  let acc = 0;
  for (let i = c.length - 1; i >= 0; i--) acc = acc * t + c[i]!;
  return acc;
}

// ---------------------------------------------------------------------------------------------------
// Φ(z): W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969)
// 631–637, in the double-precision form of Cody's ANORM, W. J. Cody, "Algorithm 715: SPECFUN",
// ACM TOMS 19 (1993) 22–32 (the algorithm behind R's pnorm). Three rational approximations:
// |z| ≤ 0.66291 (Φ − ½), 0.66291 < |z| ≤ √32 (tail·e^{z²/2}), |z| > √32 (asymptotic in 1/z²).
// The coefficients are Cody's published ones, each written as the shortest literal of the same double
// (the published 20-digit forms round to exactly these values).
// ---------------------------------------------------------------------------------------------------
const CENTRAL_NUM = [
  2.2352520354606837, 161.02823106855587, 1067.6894854603709, 18154.98125334356,
  0.06568233791820745,
];
const CENTRAL_DEN = [47.202581904688245, 976.0985517377767, 10260.932208618979, 45507.78933502673];
const MIDDLE_NUM = [
  0.39894151208813466, 8.883149794388377, 93.50665613217785, 597.2702763948002,
  2494.5375852903726, 6848.190450536283, 11602.65143764735, 9842.714838383978,
  1.0765576773720192e-8,
];
const MIDDLE_DEN = [
  22.266688044328117, 235.387901782625, 1519.3775994075547, 6485.558298266761,
  18615.571640885097, 34900.95272114598, 38912.00328609327, 19685.429676859992,
];
const TAIL_NUM = [
  0.215898534057957, 0.12740116116024736, 0.022235277870649807, 0.0014216191932278934,
  0.000029112874951168793, 0.023073441764940174,
];
const TAIL_DEN = [1.284260096144911, 0.4682382124808651, 0.06598813786892856, 0.0037823963320275824, 0.00007297515550839662];
const CENTRAL_LIMIT = 0.66291; // Φ(0.66291) ≈ 0.75, Cody's split point
const SQRT_32 = Math.sqrt(32);
const INV_SQRT_2PI = 0.3989422804014327;

// Cody's evaluation order for each rational function: the highest-order numerator coefficient is
// stored last in his tables (a[4], c[8], p[5]) and leads the recursion; the denominators are monic.
function codyRatio(num: readonly number[], den: readonly number[], t: number): number {
  const k = den.length;
  let xnum = num[k]! * t;
  let xden = t;
  for (let i = 0; i < k - 1; i++) {
    xnum = (xnum + num[i]!) * t;
    xden = (xden + den[i]!) * t;
  }
  return (xnum + num[k - 1]!) / (xden + den[k - 1]!);
}

// exp(−y²/2)·factor without losing precision for large y: split y = s + (y − s) with s = ⌊16y⌋/16,
// so s² is exact and y² = s² + (y − s)(y + s) (Cody 1993, ANORM).
function gaussianTail(y: number, factor: number): number {
  const s = Math.trunc(y * 16) / 16;
  const del = (y - s) * (y + s);
  return Math.exp(-s * s * 0.5) * Math.exp(-del * 0.5) * factor;
}

/** Upper tail Q(y) = P(Z > y) for y > 0.66291, computed directly (no cancellation). */
function upperTail(y: number): number {
  if (y <= SQRT_32) return gaussianTail(y, codyRatio(MIDDLE_NUM, MIDDLE_DEN, y));
  const r = 1 / (y * y);
  const factor = (INV_SQRT_2PI - r * codyRatio(TAIL_NUM, TAIL_DEN, r)) / y;
  return gaussianTail(y, factor);
}

/** Standard normal distribution function Φ(z) = P(Z ≤ z), relative error ~1e-15 in both tails. */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  if (z === Number.POSITIVE_INFINITY) return 1;
  if (z === Number.NEGATIVE_INFINITY) return 0;
  const y = Math.abs(z);
  if (y <= CENTRAL_LIMIT) return 0.5 + z * codyRatio(CENTRAL_NUM, CENTRAL_DEN, z * z);
  const tail = upperTail(y);
  return z > 0 ? 1 - tail : tail;
}

// ---------------------------------------------------------------------------------------------------
// Φ⁻¹(p): M. J. Wichura, "Algorithm AS 241: The percentage points of the normal distribution",
// Applied Statistics 37 (1988) 477–484, routine PPND16 (relative accuracy about 1e-16; the same
// algorithm as R's qnorm up to R 4.2). Three rational approximations: |p − ½| ≤ 0.425 in
// r = 0.180625 − q², and for the tails in r = √(−ln min(p, 1 − p)) split at r = 5. Coefficients as
// published, written as the shortest literal of the same double.
// ---------------------------------------------------------------------------------------------------
const AS241_A = [
  3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946,
  45921.95393154987, 67265.7709270087, 33430.57558358813, 2509.0809287301227,
];
const AS241_B = [
  1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597,
  39307.89580009271, 28729.085735721943, 5226.495278852854,
];
const AS241_C = [
  1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045,
  1.2704582524523684, 0.2417807251774506, 0.022723844989269184, 0.0007745450142783414,
];
const AS241_D = [
  1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008,
  0.015198666563616457, 0.0005475938084995345, 1.0507500716444169e-9,
];
const AS241_E = [
  6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487,
  0.026532189526576124, 0.0012426609473880784, 0.000027115555687434876, 2.0103343992922881e-7,
];
const AS241_F = [
  1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133,
  0.000018463183175100548, 1.421511758316446e-7, 2.0442631033899397e-15,
];

/** Standard normal quantile Φ⁻¹(p); −∞ at 0, +∞ at 1, NaN outside [0, 1]. */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * polynomial(AS241_A, r)) / polynomial(AS241_B, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let z: number;
  if (r <= 5) {
    r -= 1.6;
    z = polynomial(AS241_C, r) / polynomial(AS241_D, r);
  } else {
    r -= 5;
    z = polynomial(AS241_E, r) / polynomial(AS241_F, r);
  }
  return q < 0 ? -z : z;
}
